// The queue: every entry, the playing one marked, title and artist on two lines with the
// length, the queue's total time above; tap a row to play it, its ⋯ menu to give it priority,
// move it or remove it (a mouse also drags rows). Clearing the queue and removing a song can
// be undone for a few seconds. However long the queue is, only the rows in view are drawn
// (a 10,000-song queue scrolls like a short one).
import { $, h, songName, quote, clock, notify } from './ui.js';
import { t } from './strings.js';

/// Each row's height in CSS pixels (style.css gives `.queue-row` the same).
const rowHeight = 56;

export class Queue {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.songs = [];
    this.current = null;
    this.drawn = '';
    $('clear').addEventListener('click', () => this.clear());
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
    const total = this.songs.reduce((sum, song) => sum + Number(song.duration || song.Time || 0), 0);
    $('queue-summary').textContent = this.songs.length ? t('queueSummary', { count: this.songs.length, time: clock(total) }) : t('queueEmpty');
    $('clear').disabled = !this.songs.length;
    this.draw();
  }

  /// Clears the queue, with a moment to take it back: the songs, the one playing and where.
  async clear() {
    const songs = this.songs.map((song) => song.file);
    const status = await this.mpd.record('status').catch(() => ({}));
    if (await this.run('clear') === null) return;
    notify(t('queueCleared', { count: songs.length }), async () => {
      const lines = ['command_list_begin', ...songs.map((file) => `add ${quote(file)}`)];
      if (status.song !== undefined && status.state !== 'stop') {
        lines.push(`seek ${status.song} ${Number(status.elapsed || 0).toFixed(1)}`);
        if (status.state === 'pause') lines.push('pause 1');
      }
      lines.push('command_list_end');
      await this.run(lines.join('\n'));
    }, t('undo'));
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
    const length = song.duration || song.Time;
    const row = h('li', { class: 'queue-row', 'aria-current': song.Id === this.current ? 'true' : null,
      'aria-posinset': index + 1, 'aria-setsize': this.songs.length, draggable: this.mouse ? 'true' : null },
      h('button', { class: 'row-main two-lines', 'aria-label': `${t('play')} ${name}`, onclick: () => this.run(`playid ${song.Id}`) },
        h('span', { class: 'line-title', text: name }, prio ? h('span', { class: 'prio', text: `★${prio}` }) : null),
        h('span', { class: 'line-detail muted', text: [song.Artist, song.Album].filter(Boolean).join(' · ') })),
      h('span', { class: 'row-time muted', text: length ? clock(Number(length)) : '' }),
      h('button', { class: 'row-action', text: '⋯', 'aria-label': `${t('actions')} ${name}`, 'aria-haspopup': 'dialog',
        onclick: () => this.menu(song, index) }),
    );
    if (this.mouse) this.draggable(row, song, index);
    // Through the CSSOM: the page's Content-Security-Policy allows no inline style attribute.
    row.style.top = `${index * rowHeight}px`;
    return row;
  }

  /// What can be done with one entry, as a sheet of large buttons (a phone's action sheet).
  menu(song, index) {
    const name = songName(song), prio = Number(song.Prio || 0);
    const act = (label, line, after) => h('button', { text: label, onclick: async () => {
      sheet.close();
      if (await this.run(line) !== null && after) after();
    } });
    const sheet = h('dialog', { class: 'sheet', 'aria-label': name },
      h('p', { class: 'sheet-title', text: [name, song.Artist].filter(Boolean).join(' — ') }),
      act(t('play'), `playid ${song.Id}`),
      act(prio > 0 ? t('priorityOff') : t('priority'), `prioid ${prio > 0 ? 0 : 255} ${song.Id}`),
      index > 0 ? act(t('moveTop'), `moveid ${song.Id} 0`) : null,
      index > 0 ? act(t('moveUp'), `moveid ${song.Id} ${index - 1}`) : null,
      index + 1 < this.songs.length ? act(t('moveDown'), `moveid ${song.Id} ${index + 1}`) : null,
      act(t('remove'), `deleteid ${song.Id}`, () => notify(t('removedSong', { name }), () => this.run(`addid ${quote(song.file)} ${index}`), t('undo'))),
      h('button', { class: 'sheet-cancel', text: t('cancel'), onclick: () => sheet.close() }));
    sheet.addEventListener('close', () => sheet.remove());
    sheet.addEventListener('click', (event) => { if (event.target === sheet) sheet.close(); });
    document.body.append(sheet);
    sheet.showModal();
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
