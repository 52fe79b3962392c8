// The library: albums as a grid of covers, artists, genres, folders (the music directory and
// every cloud account alike, cloud ones marked), search as you type across artists, albums
// and songs; an album's page with its songs; add, play next, play, add to a playlist, keep a
// cloud album or folder offline. Every view is an address (`#library/album/ARTIST/ALBUM`), so
// Back returns to the view before it.
import { $, h, quote, songName, coverURL, clock, notify } from './ui.js';
import { t } from './strings.js';

/// An MPD filter matching every tag given ({ Album: 'x', AlbumArtist: 'y' }).
export function filterOf(tags) {
  const parts = Object.entries(tags).filter(([, value]) => value !== undefined).map(([tag, value]) => `(${tag} == ${quote(value)})`);
  return parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`;
}

/// The address of a view: its parts joined by `/`, each escaped.
const address = (...parts) => '#library/' + parts.map((part) => encodeURIComponent(part)).join('/');

export class Library {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.view = 'albums';
    this.route = '';
    this.clouds = new Set();
    this.playlists = [];
    $('search-form').addEventListener('submit', (event) => { event.preventDefault(); this.typed(true); });
    // Search as you type: a quarter second after the last key, the address follows the text
    // (replaced while typing, so Back leaves the search rather than stepping through it).
    $('search').addEventListener('input', () => {
      clearTimeout(this.typing);
      this.typing = setTimeout(() => this.typed(false), 250);
    });
    for (const button of document.querySelectorAll('#library-views button')) {
      button.addEventListener('click', () => this.go(button.dataset.view));
    }
  }

  setClouds(names) { this.clouds = new Set(names); }
  setPlaylists(names) { this.playlists = names; }

  isCloud(path) { return this.clouds.has((path || '').split('/')[0]); }

  /// Goes to a view (a new history entry): `go('albums')`, `go('folders', 'dav', 'Jazz')`,
  /// `go('album', ARTIST, ALBUM)`.
  go(kind, ...parts) { return this.goTo(address(kind, ...parts), false); }

  goTo(target, replace) {
    if (location.hash === target) return this.show(target.slice('#library/'.length));
    if (replace) {
      history.replaceState(null, '', target);
      return this.show(target.slice('#library/'.length));
    }
    location.hash = target;
    return Promise.resolve();
  }

  typed(submit) {
    const text = $('search').value.trim();
    if (!text) { if (this.view === 'search') history.back(); return; }
    // The first letter starts a search (a new entry); the rest refine it in place.
    this.goTo(address('search', text), this.view === 'search' && !submit);
  }

  /// The view shown again (after the database changed).
  refresh() { return this.show(this.route, { quiet: true }); }

  /// Draws the view an address names (`rest` of `#library/…`, its parts escaped).
  async show(rest = '', options = {}) {
    this.route = rest;
    const [kind, ...parts] = rest ? rest.split('/').map((part) => decodeURIComponent(part)) : ['albums'];
    const tail = parts.join('/');
    if (!options.quiet && kind !== 'search') $('search').value = '';
    switch (kind) {
      case 'folders': return this.open(tail);
      case 'album': return this.openAlbum({ AlbumArtist: parts[0] || undefined, Album: parts[1] || '' });
      case 'artist': return this.albums({ AlbumArtist: parts[0] }, [t('artists'), parts[0]].join(' › '));
      case 'genre': return this.albums({ Genre: parts[0] }, [t('genres'), parts[0]].join(' › '));
      case 'artists': case 'genres': return this.names(kind);
      case 'search': if ($('search').value.trim() !== parts[0] && options.quiet !== true) $('search').value = parts[0] || ''; return this.search(parts[0] || '');
      default: return this.albums();
    }
  }

  async names(view) {
    const tag = view === 'artists' ? 'AlbumArtist' : 'Genre';
    const names = (await this.list(`list ${tag}`)).map(([, value]) => value).filter(Boolean);
    this.present(view, t(view), names.map((name) => h('li', {},
      h('a', { class: 'row-main', text: name, href: address(view === 'artists' ? 'artist' : 'genre', name) }))), 'list');
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
    const tab = ['album', 'artist', 'genre'].includes(view) ? 'albums' : view;
    for (const button of document.querySelectorAll('#library-views button')) button.setAttribute('aria-pressed', String(button.dataset.view === tab));
    $('crumbs').textContent = crumbs;
    $('library-list').className = shape === 'grid' ? 'grid' : 'rows';
    $('library-list').replaceChildren(...(items.length ? items : [h('li', { class: 'muted', text: t('noResults') })]));
  }

  /// Albums as tiles with their covers (scaled by the daemon, loaded as they scroll into view).
  async albums(filter, title) {
    const line = filter ? `list Album ${quote(filterOf(filter))} group AlbumArtist` : 'list Album group AlbumArtist';
    const tiles = [];
    let artist = '';
    for (const [key, value] of await this.list(line)) {
      if (key === 'AlbumArtist') artist = value;
      else if (key === 'Album' && value) tiles.push(this.tile({ Album: value, AlbumArtist: artist || undefined }, tiles.length < 30));
    }
    this.present(filter ? (filter.Genre ? 'genre' : 'artist') : 'albums', title || t('albums'), tiles, 'grid');
    performance.mark('nimbus:grid');
  }

  /// One album's tile; the first screenful loads its covers at once, the rest as they scroll
  /// into view (a lazy image waits for layout and is fetched at low priority).
  tile(album, eager) {
    const size = Math.round(160 * (window.devicePixelRatio || 1));
    return h('li', { class: 'tile' },
      h('a', { 'aria-label': [album.Album, album.AlbumArtist].filter(Boolean).join(' — '), href: address('album', album.AlbumArtist || '', album.Album) },
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
        h('h2', { text: album.Album }),
        album.AlbumArtist ? h('a', { class: 'muted', href: address('artist', album.AlbumArtist), text: album.AlbumArtist }) : null,
        h('div', { class: 'options' },
          h('button', { text: t('play'), 'aria-label': `${t('play')} ${album.Album}`, onclick: () => this.play(`findadd ${quote(filter)}`) }),
          h('button', { text: t('add'), 'aria-label': `${t('add')} ${album.Album}`, onclick: () => this.add(`findadd ${quote(filter)}`, album.Album) }),
          h('button', { text: t('insert'), 'aria-label': `${t('insert')} ${album.Album}`, onclick: () => this.insert(`findadd ${quote(filter)}`, album.Album) }),
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

  async add(command, name) {
    if (await this.run(command) !== null) this.added(name);
  }

  /// Adds right after the playing song (MPD's relative position `+0`: `add URI +0`, and the
  /// `position` keyword of `findadd`/`searchadd`), or at the end when nothing plays.
  async insert(command, name) {
    const status = await this.mpd.record('status');
    const relative = status.song === undefined ? '' : command.startsWith('add ') ? ' +0' : ' position +0';
    if (await this.run(command + relative) !== null) this.added(name, true);
  }

  /// A line at the bottom saying what went into the queue.
  added(name, next = false) { notify(t(next ? 'addedNext' : 'addedToQueue', { name })); }

  /// Shows a folder; one that is not there (yet: an account still being read) shows empty
  /// and is looked at again when the database changes. A podcast's episodes come newest
  /// first, with the show's picture above them.
  async open(path) {
    this.path = path;
    if (!this.positions) await this.loadPositions();
    const entries = [];
    for (const [key, value] of await this.list(`lsinfo ${quote(path)}`)) {
      if (key === 'directory' || key === 'file' || key === 'playlist') entries.push({ kind: key, path: value, [key]: value });
      else if (entries.length) entries[entries.length - 1][key] = value;
    }
    const show = /^podcasts\/[^/]+$/.test(path);
    if (show) entries.sort((a, b) => (b.Date || b.path).localeCompare(a.Date || a.path));
    const rows = [];
    if (show) rows.push(h('li', { class: 'album-head' }, h('img', { class: 'album-cover', alt: '', src: coverURL({ uri: path }, Math.round(320 * (window.devicePixelRatio || 1))),
      onload: (event) => { event.target.hidden = event.target.naturalWidth <= 1; } }), h('div', {}, h('h2', { text: path.split('/').pop() }))));
    if (path) rows.push(h('li', {}, h('a', { class: 'row-main', text: '↑ ' + t('up'), href: address('folders', ...parent(path).split('/').filter(Boolean)) })));
    for (const entry of entries) {
      if (entry.kind === 'directory') rows.push(this.folderRow(entry.path));
      else if (entry.kind === 'file') rows.push(this.songRow(entry, path.startsWith('podcasts/')));
      else if (entry.kind === 'playlist') rows.push(this.playlistRow(entry.path));
    }
    this.present('folders', path || t('home'), rows, 'list');
  }

  folderRow(path) {
    const name = path.split('/').pop();
    const cloud = this.isCloud(path);
    const podcast = /^podcasts\/[^/]+$/.test(path);
    return h('li', { class: 'folder' },
      podcast ? h('img', { class: 'row-cover', alt: '', src: coverURL({ uri: path }, Math.round(48 * (window.devicePixelRatio || 1))), loading: 'lazy',
        onload: (event) => { event.target.hidden = event.target.naturalWidth <= 1; } }) : null,
      h('a', { class: 'row-main', text: name, href: address('folders', ...path.split('/')) },
        cloud && !path.includes('/') ? h('span', { class: 'badge', text: t('cloud') }) : null),
      h('button', { class: 'row-action', text: '▶', 'aria-label': `${t('play')} ${name}`, onclick: () => this.play(`add ${quote(path)}`) }),
      h('button', { class: 'row-action', text: '⤵', 'aria-label': `${t('insert')} ${name}`, onclick: () => this.insert(`add ${quote(path)}`, name) }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.add(`add ${quote(path)}`, name) }),
      cloud ? h('button', { class: 'row-action', text: '↓', 'aria-label': `${t('keepOffline')} ${name}`, onclick: () => this.run(`pin ${quote(path)}`) }) : null,
    );
  }

  /// A playlist file in the music folder: load it (MPD loads them by their path).
  playlistRow(path) {
    const name = path.split('/').pop();
    return h('li', { class: 'playlist-file' },
      h('span', { class: 'row-main', text: `☰ ${name}` }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('load')} ${name}`, onclick: () => this.add(`load ${quote(path)}`, name) }));
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

  songRow(song, artwork = false) {
    const name = songName(song), file = song.file;
    return h('li', { class: 'song' },
      artwork ? h('img', { class: 'row-cover', alt: '', src: coverURL({ uri: file }, Math.round(48 * (window.devicePixelRatio || 1))), loading: 'lazy',
        onload: (event) => { event.target.hidden = event.target.naturalWidth <= 1; } }) : null,
      h('button', { class: 'row-main two-lines', 'aria-label': `${t('playNow')} ${name}`,
        onclick: async () => { const added = await this.mpd.record(`addid ${quote(file)}`).catch(() => null); if (added) await this.run(`playid ${added.Id}`); } },
        h('span', { class: 'line-title', text: name }, this.positionNote(file)),
        h('span', { class: 'line-detail muted', text: [song.Artist, song.Date && file.startsWith('podcasts/') ? song.Date.slice(0, 10) : null,
          song.duration ? clock(Number(song.duration)) : null].filter(Boolean).join(' · ') })),
      h('button', { class: 'row-action', text: '⤵', 'aria-label': `${t('insert')} ${name}`, onclick: () => this.insert(`add ${quote(file)}`, name) }),
      h('button', { class: 'row-action', text: '+', 'aria-label': `${t('add')} ${name}`, onclick: () => this.add(`add ${quote(file)}`, name) }),
    );
  }

  /// Artists, albums and songs matching what was typed, each under its heading.
  async search(text) {
    if (!text) return this.albums();
    if (!this.positions) await this.loadPositions();
    // `list` compares as `find` does (case matters): the case-blind operator of MPD 0.24.
    const contains = (tag) => quote(`(${tag} contains_ci ${quote(text)})`);
    const [artists, albumFields, songs] = await Promise.all([
      this.list(`list AlbumArtist ${contains('AlbumArtist')}`),
      this.list(`list Album ${contains('Album')} group AlbumArtist`),
      this.mpd.records(`search ${quote(`(any contains ${quote(text)})`)} window 0:100`, 'file').catch(() => []),
    ]);
    if ($('search').value.trim() !== text && this.view === 'search') return;
    const items = [];
    const names = artists.map(([, value]) => value).filter(Boolean).slice(0, 20);
    if (names.length) {
      items.push(h('li', { class: 'heading' }, h('h2', { text: t('artists') })));
      for (const name of names) items.push(h('li', {}, h('a', { class: 'row-main', text: name, href: address('artist', name) })));
    }
    const albums = [];
    let artist = '';
    for (const [key, value] of albumFields) {
      if (key === 'AlbumArtist') artist = value;
      else if (key === 'Album' && value && albums.length < 20) albums.push({ Album: value, AlbumArtist: artist || undefined });
    }
    if (albums.length) {
      items.push(h('li', { class: 'heading' }, h('h2', { text: t('albums') })));
      for (const album of albums) {
        items.push(h('li', {}, h('a', { class: 'row-main two-lines', href: address('album', album.AlbumArtist || '', album.Album) },
          h('span', { class: 'line-title', text: album.Album }), h('span', { class: 'line-detail muted', text: album.AlbumArtist || '' }))));
      }
    }
    if (songs.length) {
      items.push(h('li', { class: 'heading' }, h('h2', { text: t('songCount') })));
      for (const song of songs) items.push(this.songRow(song));
    }
    this.present('search', `${t('search')}: ${text}`, items, 'list');
  }
}

function parent(path) { return path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''; }
