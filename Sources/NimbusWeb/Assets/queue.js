// The queue: every entry, the playing one marked; play, remove or clear.
import { $, h, songName } from './ui.js';
import { t } from './strings.js';

export class Queue {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    $('clear').addEventListener('click', () => run('clear'));
  }

  async refresh(current) {
    const songs = await this.mpd.records('playlistinfo', 'file');
    $('queue-list').replaceChildren(...songs.map((song) => h('li', { 'aria-current': song.Id === current ? 'true' : null },
      h('button', { class: 'row-main', text: [song.Artist, songName(song)].filter(Boolean).join(' — '), 'aria-label': `${t('play')} ${songName(song)}`,
        onclick: () => this.run(`playid ${song.Id}`) }),
      h('button', { class: 'row-action', text: '×', 'aria-label': `${t('remove')} ${songName(song)}`, onclick: () => this.run(`deleteid ${song.Id}`) }),
    )));
  }
}
