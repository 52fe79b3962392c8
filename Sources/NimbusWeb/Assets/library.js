// The library: folders (the music directory and every cloud account alike, cloud ones
// marked), search across tags; add or play a folder or a song, keep a cloud folder offline.
import { $, h, quote, songName } from './ui.js';
import { t } from './strings.js';

export class Library {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.path = '';
    this.clouds = new Set();
    $('search-form').addEventListener('submit', (event) => { event.preventDefault(); this.search($('search').value); });
  }

  setClouds(names) { this.clouds = new Set(names); }

  isCloud(path) { return this.clouds.has(path.split('/')[0]); }

  /// Shows a folder; one that is not there (yet: an account still being read) shows empty
  /// and is looked at again when the database changes.
  async open(path) {
    this.path = path;
    let fields = [];
    try {
      fields = (await this.mpd.command(`lsinfo ${quote(path)}`)).fields;
    } catch {
      fields = [];
    }
    const entries = [];
    for (const [key, value] of fields) {
      if (key === 'directory' || key === 'file' || key === 'playlist') entries.push({ kind: key, path: value });
      else if (entries.length) entries[entries.length - 1][key] = value;
    }
    const rows = [];
    if (path) {
      const up = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
      rows.push(h('li', {}, h('button', { class: 'row-main', text: '↑ ' + t('up'), onclick: () => this.open(up) })));
    }
    for (const entry of entries) {
      if (entry.kind === 'directory') rows.push(this.folderRow(entry.path));
      else if (entry.kind === 'file') rows.push(this.songRow(entry));
    }
    $('crumbs').textContent = path || t('home');
    $('library-list').replaceChildren(...rows);
  }

  folderRow(path) {
    const name = path.split('/').pop();
    const cloud = this.isCloud(path);
    return h('li', { class: 'folder' },
      h('button', { class: 'row-main', text: name, onclick: () => this.open(path) },
        cloud && !path.includes('/') ? h('span', { class: 'badge', text: t('cloud') }) : null),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.run(`add ${quote(path)}`) }),
      cloud ? h('button', { class: 'row-action', text: '↓', 'aria-label': `${t('keepOffline')} ${name}`, onclick: () => this.run(`pin ${quote(path)}`) }) : null,
    );
  }

  songRow(song) {
    const name = songName(song);
    return h('li', {},
      h('button', { class: 'row-main', text: [song.Artist, name].filter(Boolean).join(' — '), 'aria-label': `${t('playNow')} ${name}`,
        onclick: async () => { const added = await this.mpd.record(`addid ${quote(song.path ?? song.file)}`); await this.run(`playid ${added.Id}`); } }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.run(`add ${quote(song.path ?? song.file)}`) }),
    );
  }

  async search(text) {
    if (!text.trim()) return this.open(this.path);
    const songs = await this.mpd.records(`search ${quote(`(any contains ${quote(text)})`)} window 0:200`, 'file');
    $('crumbs').textContent = `${t('search')}: ${text}`;
    $('library-list').replaceChildren(...(songs.length ? songs.map((song) => this.songRow(song)) : [h('li', { text: t('noResults') })]));
  }
}
