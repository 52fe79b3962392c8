// Stored playlists: open one to see its songs, load it into the queue, rename or delete it;
// keep its cloud songs offline; the queue saved as a new one.
import { $, h, quote, songName, confirmAction } from './ui.js';
import { t } from './strings.js';

export class Playlists {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    $('save-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const name = $('save-name').value.trim();
      if (name && await run(`save ${quote(name)}`) !== null) $('save-name').value = '';
    });
  }

  async refresh() {
    let playlists = [];
    try {
      playlists = await this.mpd.records('listplaylists', 'playlist');
    } catch {
      playlists = [];
    }
    $('playlist-list').replaceChildren(...(playlists.length ? playlists.map((entry) => this.row(entry.playlist)) : [h('li', { text: t('noPlaylists') })]));
    return playlists.map((entry) => entry.playlist);
  }

  row(name) {
    return h('li', {},
      h('button', { class: 'row-main', text: name, onclick: () => this.open(name) }),
      h('button', { text: t('load'), 'aria-label': `${t('load')} ${name}`, onclick: () => this.run(`load ${quote(name)}`) }),
      h('button', { text: t('rename'), 'aria-label': `${t('rename')} ${name}`, onclick: () => this.rename(name) }),
      h('button', { text: '↓', 'aria-label': `${t('keepOffline')} ${name}`, onclick: () => this.run(`pinplaylist ${quote(name)}`) }),
      h('button', { text: t('remove'), 'aria-label': `${t('remove')} ${name}`, onclick: async () => {
        if (await confirmAction(t('confirmDeletePlaylist', { name }), t('remove'), t('cancel'))) await this.run(`rm ${quote(name)}`);
      } }),
    );
  }

  async rename(name) {
    const next = window.prompt(t('rename'), name);
    if (next && next !== name) await this.run(`rename ${quote(name)} ${quote(next)}`);
  }

  async open(name) {
    const songs = await this.mpd.records(`listplaylistinfo ${quote(name)}`, 'file');
    $('playlist-songs').replaceChildren(h('h2', { text: name }),
      h('ol', { class: 'rows' }, ...songs.map((song) => h('li', { text: [song.Artist, songName(song)].filter(Boolean).join(' — ') }))));
  }
}
