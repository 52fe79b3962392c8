// The queue: every entry, the playing one marked; play, move (drag with a mouse, buttons on
// a phone), priority, remove, clear, save as a playlist. However long it is, only the rows in
// view are drawn (a 10,000-song queue scrolls like a short one).
import { $, h, songName, quote } from './ui.js';
import { t } from './strings.js';

/// Each row's height in CSS pixels (style.css gives `.queue-row` the same).
const rowHeight = 48;

export class Queue {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.songs = [];
    this.current = null;
    this.drawn = '';
    $('clear').addEventListener('click', () => run('clear'));
    $('save-queue').addEventListener('click', async () => {
      const name = (window.prompt(t('saveAs')) || '').trim();
      if (name) await run(`save ${quote(name)}`);
    });
    this.mouse = window.matchMedia('(pointer: fine)').matches;
    const redraw = () => this.draw();
    window.addEventListener('scroll', redraw, { passive: true });
    window.addEventListener('resize', redraw);
  }

  async refresh(current) {
    this.songs = await this.mpd.records('playlistinfo', 'file');
    this.current = current;
    this.drawn = '';
    this.draw();
  }

  /// The rows in view (and a screen above and below), placed where they belong.
  draw() {
    const list = $('queue-list');
    if (list.closest('section').hidden && this.drawn) return;
    list.style.height = `${this.songs.length * rowHeight}px`;
    const top = list.getBoundingClientRect().top + window.scrollY;
    const first = Math.max(0, Math.floor((window.scrollY - top) / rowHeight) - 20);
    const last = Math.min(this.songs.length, first + Math.ceil(window.innerHeight / rowHeight) + 40);
    const key = `${first}:${last}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const rows = [];
    for (let index = first; index < last; index++) rows.push(this.row(this.songs[index], index));
    list.replaceChildren(...rows);
  }

  row(song, index) {
    const name = songName(song), prio = Number(song.Prio || 0);
    const row = h('li', { class: 'queue-row', 'aria-current': song.Id === this.current ? 'true' : null,
      'aria-posinset': index + 1, 'aria-setsize': this.songs.length, draggable: this.mouse ? 'true' : null },
      h('button', { class: 'row-main', text: [name, song.Artist].filter(Boolean).join(' — '), 'aria-label': `${t('play')} ${name}`,
        onclick: () => this.run(`playid ${song.Id}`) }, prio ? h('span', { class: 'prio', text: `★${prio}` }) : null),
      h('button', { class: 'row-action', text: '★', 'aria-pressed': String(prio > 0), 'aria-label': `${t('priority')} ${name}`,
        onclick: () => this.run(`prioid ${prio > 0 ? 0 : 255} ${song.Id}`) }),
      index > 0 ? h('button', { class: 'row-action', text: '↑', 'aria-label': `${t('moveUp')} ${name}`, onclick: () => this.run(`moveid ${song.Id} ${index - 1}`) }) : null,
      index + 1 < this.songs.length && !this.mouse
        ? h('button', { class: 'row-action', text: '↓', 'aria-label': `${t('moveDown')} ${name}`, onclick: () => this.run(`moveid ${song.Id} ${index + 1}`) }) : null,
      h('button', { class: 'row-action', text: '×', 'aria-label': `${t('remove')} ${name}`, onclick: () => this.run(`deleteid ${song.Id}`) }),
    );
    if (this.mouse) this.draggable(row, song, index);
    // Through the CSSOM: the page's Content-Security-Policy allows no inline style attribute.
    row.style.top = `${index * rowHeight}px`;
    return row;
  }

  /// Drag a row onto another to move it there (`moveid`).
  draggable(row, song, index) {
    row.addEventListener('dragstart', (event) => { event.dataTransfer.setData('text/plain', song.Id); event.dataTransfer.effectAllowed = 'move'; });
    row.addEventListener('dragover', (event) => { event.preventDefault(); row.classList.add('drop-target'); });
    row.addEventListener('dragleave', () => row.classList.remove('drop-target'));
    row.addEventListener('drop', (event) => {
      event.preventDefault();
      row.classList.remove('drop-target');
      const id = event.dataTransfer.getData('text/plain');
      if (id && id !== song.Id) this.run(`moveid ${Number(id)} ${index}`);
    });
  }
}
