// The library: albums as a grid of covers, artists, genres, folders (the music directory and
// every cloud account alike, cloud ones marked), search across tags; an album's page with its
// songs; add, insert after the playing song, play, add to a playlist, keep a cloud album or
// folder offline.
import { $, h, quote, songName, coverURL, clock } from './ui.js';
import { t } from './strings.js';

/// An MPD filter matching every tag given ({ Album: 'x', AlbumArtist: 'y' }).
export function filterOf(tags) {
  const parts = Object.entries(tags).filter(([, value]) => value !== undefined).map(([tag, value]) => `(${tag} == ${quote(value)})`);
  return parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`;
}

export class Library {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.path = '';
    this.view = 'albums';
    this.clouds = new Set();
    this.playlists = [];
    $('search-form').addEventListener('submit', (event) => { event.preventDefault(); this.search($('search').value); });
    for (const button of document.querySelectorAll('#library-views button')) {
      button.addEventListener('click', () => this.show(button.dataset.view));
    }
  }

  setClouds(names) { this.clouds = new Set(names); }
  setPlaylists(names) { this.playlists = names; }

  isCloud(path) { return this.clouds.has((path || '').split('/')[0]); }

  /// The view shown again (after the database changed).
  async refresh() {
    if (this.view === 'folders') return this.open(this.path);
    if (this.view === 'album' && this.album) return this.openAlbum(this.album);
    if (this.view === 'artists' || this.view === 'genres') return this.show(this.view);
    return this.albums(this.albumFilter, this.albumTitle);
  }

  async show(view) {
    if (view === 'folders') return this.open(this.path);
    if (view === 'albums') return this.albums();
    const tag = view === 'artists' ? 'AlbumArtist' : 'Genre';
    const names = (await this.list(`list ${tag}`)).map(([, value]) => value).filter(Boolean);
    this.present(view, t(view), names.map((name) => h('li', {},
      h('button', { class: 'row-main', text: name, onclick: () => this.albums({ [tag]: name }, [t(view), name].join(' › ')) }))), 'list');
  }

  async list(line) {
    try {
      return (await this.mpd.command(line)).fields;
    } catch {
      return [];
    }
  }

  /// Puts rows (or tiles) on the page; `view` marks the tab.
  present(view, crumbs, items, shape) {
    this.view = view;
    const tab = view === 'album' ? 'albums' : view;
    for (const button of document.querySelectorAll('#library-views button')) button.setAttribute('aria-pressed', String(button.dataset.view === tab));
    $('crumbs').textContent = crumbs;
    $('library-list').className = shape === 'grid' ? 'grid' : 'rows';
    $('library-list').replaceChildren(...(items.length ? items : [h('li', { class: 'muted', text: t('noResults') })]));
  }

  /// Albums as tiles with their covers (scaled by the daemon, loaded as they scroll into view).
  async albums(filter, title) {
    this.albumFilter = filter;
    this.albumTitle = title;
    const line = filter ? `list Album ${quote(filterOf(filter))} group AlbumArtist` : 'list Album group AlbumArtist';
    const tiles = [];
    let artist = '';
    for (const [key, value] of await this.list(line)) {
      if (key === 'AlbumArtist') artist = value;
      else if (key === 'Album' && value) tiles.push(this.tile({ Album: value, AlbumArtist: artist || undefined }, tiles.length < 30));
    }
    this.present('albums', title || t('albums'), tiles, 'grid');
    performance.mark('nimbus:grid');
  }

  /// One album's tile; the first screenful loads its covers at once, the rest as they scroll
  /// into view (a lazy image waits for layout and is fetched at low priority).
  tile(album, eager) {
    const size = Math.round(160 * (window.devicePixelRatio || 1));
    return h('li', { class: 'tile' },
      h('button', { 'aria-label': [album.Album, album.AlbumArtist].filter(Boolean).join(' — '), onclick: () => this.openAlbum(album) },
        h('img', { src: coverURL({ album: album.Album, artist: album.AlbumArtist || '' }, size), alt: '', loading: eager ? 'eager' : 'lazy',
          width: 160, height: 160 }),
        h('span', { class: 'tile-title', text: album.Album }),
        h('span', { class: 'tile-artist muted', text: album.AlbumArtist || '' })));
  }

  /// An album's page: cover, songs, and what can be done with all of them.
  async openAlbum(album) {
    this.album = album;
    if (!this.positions) await this.loadPositions();
    const filter = filterOf(album);
    let songs = [];
    try {
      songs = await this.mpd.records(`find ${quote(filter)}`, 'file');
    } catch {
      songs = [];
    }
    const folder = songs.length && songs.every((song) => parent(song.file) === parent(songs[0].file)) ? parent(songs[0].file) : null;
    const head = h('li', { class: 'album-head' },
      h('img', { class: 'album-cover', alt: '', src: coverURL({ album: album.Album, artist: album.AlbumArtist || '' }, Math.round(320 * (window.devicePixelRatio || 1))),
        onload: (event) => { event.target.hidden = event.target.naturalWidth <= 1; } }),
      h('div', {},
        h('h2', { text: album.Album }), h('p', { class: 'muted', text: album.AlbumArtist || '' }),
        h('div', { class: 'options' },
          h('button', { text: t('play'), 'aria-label': `${t('play')} ${album.Album}`, onclick: () => this.play(`findadd ${quote(filter)}`) }),
          h('button', { text: t('add'), 'aria-label': `${t('add')} ${album.Album}`, onclick: () => this.run(`findadd ${quote(filter)}`) }),
          h('button', { text: t('insert'), 'aria-label': `${t('insert')} ${album.Album}`, onclick: () => this.insert(`findadd ${quote(filter)}`) }),
          folder && this.isCloud(folder)
            ? h('button', { text: t('keepOffline'), 'aria-label': `${t('keepOffline')} ${album.Album}`, onclick: () => this.run(`pin ${quote(folder)}`) }) : null,
          this.playlistPicker((name) => this.run(`searchaddpl ${quote(name)} ${quote(filter)}`), album.Album))));
    this.present('album', [t('albums'), album.Album].join(' › '), [head, ...songs.map((song) => this.songRow(song))], 'list');
  }

  /// "Add to playlist": the stored playlists, or a new one by name.
  playlistPicker(add, name) {
    const select = h('select', { 'aria-label': `${t('addToPlaylist')} ${name}` },
      h('option', { value: '', text: t('addToPlaylist') + '…' }),
      ...this.playlists.map((playlist) => h('option', { value: playlist, text: playlist })),
      h('option', { value: '\u0000new', text: t('newPlaylist') }));
    select.addEventListener('change', async () => {
      let target = select.value;
      select.value = '';
      if (target === '\u0000new') target = (window.prompt(t('newPlaylist')) || '').trim();
      if (target) await add(target);
    });
    return select;
  }

  /// Adds (with `command`, which must add at the end) and plays the first song added.
  async play(command) {
    const before = Number((await this.mpd.record('status')).playlistlength || 0);
    if (await this.run(command) !== null) await this.run(`play ${before}`);
  }

  /// Adds right after the playing song (MPD 0.23's relative position `+0`), or at the end
  /// when nothing plays.
  async insert(command) {
    const status = await this.mpd.record('status');
    await this.run(status.song !== undefined ? `${command} position +0` : command);
  }

  /// Shows a folder; one that is not there (yet: an account still being read) shows empty
  /// and is looked at again when the database changes.
  async open(path) {
    this.path = path;
    if (!this.positions) await this.loadPositions();
    const entries = [];
    for (const [key, value] of await this.list(`lsinfo ${quote(path)}`)) {
      if (key === 'directory' || key === 'file' || key === 'playlist') entries.push({ kind: key, path: value, [key]: value });
      else if (entries.length) entries[entries.length - 1][key] = value;
    }
    const rows = [];
    if (path) rows.push(h('li', {}, h('button', { class: 'row-main', text: '↑ ' + t('up'), onclick: () => this.open(parent(path)) })));
    for (const entry of entries) {
      if (entry.kind === 'directory') rows.push(this.folderRow(entry.path));
      else if (entry.kind === 'file') rows.push(this.songRow(entry));
    }
    this.present('folders', path || t('home'), rows, 'list');
  }

  folderRow(path) {
    const name = path.split('/').pop();
    const cloud = this.isCloud(path);
    return h('li', { class: 'folder' },
      h('button', { class: 'row-main', text: name, onclick: () => this.open(path) },
        cloud && !path.includes('/') ? h('span', { class: 'badge', text: t('cloud') }) : null),
      h('button', { class: 'row-action', text: '▶', 'aria-label': `${t('play')} ${name}`, onclick: () => this.play(`add ${quote(path)}`) }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.run(`add ${quote(path)}`) }),
      cloud ? h('button', { class: 'row-action', text: '↓', 'aria-label': `${t('keepOffline')} ${name}`, onclick: () => this.run(`pin ${quote(path)}`) }) : null,
    );
  }

  /// Where long songs were left (`elapsed` stickers) and which were heard to the end
  /// (`played`): one `sticker find` each, not a question per song; asked again only after
  /// the `sticker` event (`forgetPositions`).
  async loadPositions() {
    const read = async (name) => {
      const found = new Map();
      try {
        for (const record of await this.mpd.records(`sticker find song "" ${name}`, 'file')) {
          const value = (record.sticker || '').split('=').slice(1).join('=');
          found.set(record.file, value);
        }
      } catch {
        // No sticker database: nothing to show.
      }
      return found;
    };
    this.positions = await read('elapsed');
    this.played = await read('played');
  }

  forgetPositions() { this.positions = null; this.played = null; }

  /// "▶ 12:34" for a song left part-heard, "✓" for one heard to its end, "●" for a podcast
  /// episode not started.
  positionNote(file) {
    if (this.positions?.has(file)) return h('span', { class: 'position', text: `▶ ${clock(Number(this.positions.get(file)))}`, title: t('resumesAt') });
    if (this.played?.has(file)) return h('span', { class: 'position', text: '✓', title: t('played') });
    // A podcast episode neither started nor heard: new to the listener.
    if (file.startsWith('podcasts/') && this.positions) return h('span', { class: 'position', text: '●', title: t('unplayed') });
    return null;
  }

  songRow(song) {
    const name = songName(song), file = song.file;
    return h('li', {},
      h('button', { class: 'row-main', text: [song.Artist, name].filter(Boolean).join(' — '), 'aria-label': `${t('playNow')} ${name}`,
        onclick: async () => { const added = await this.mpd.record(`addid ${quote(file)}`); await this.run(`playid ${added.Id}`); } },
        this.positionNote(file)),
      h('button', { class: 'row-action', text: '⤵', 'aria-label': `${t('insert')} ${name}`, onclick: () => this.insert(`add ${quote(file)}`) }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.run(`add ${quote(file)}`) }),
    );
  }

  async search(text) {
    if (!text.trim()) return this.refresh();
    if (!this.positions) await this.loadPositions();
    let songs = [];
    try {
      songs = await this.mpd.records(`search ${quote(`(any contains ${quote(text)})`)} window 0:200`, 'file');
    } catch {
      songs = [];
    }
    this.present('search', `${t('search')}: ${text}`, songs.map((song) => this.songRow(song)), 'list');
  }
}

function parent(path) { return path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''; }
