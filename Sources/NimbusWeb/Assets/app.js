// The page's shell: the connection, the pages and what wakes them. Each page is a module;
// all of them speak MPD through one connection that idles between commands. Where the person
// is lives in the address (`#library/album/…`), so Back returns to where they came from and a
// page survives a reload or a reconnect.
import { MPD } from './mpd.js';
import { $, quote, setLibraryVersion, humanError } from './ui.js';
import { t, lang } from './strings.js';
import { NowPlaying } from './now.js';
import { Queue } from './queue.js';

document.documentElement.lang = lang;
for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
for (const element of document.querySelectorAll('[data-label]')) element.setAttribute('aria-label', t(element.dataset.label));
for (const element of document.querySelectorAll('[data-placeholder]')) element.placeholder = t(element.dataset.placeholder);

const subsystems = 'database update stored_playlist playlist player mixer output options mount partition offline account sticker eq analysis';
const mpd = new MPD(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`, subsystems);

/// Runs a command; an ACK (or a lost connection) is shown, as a sentence, and gives null
/// instead of being thrown.
async function run(line) {
  try {
    const answer = await mpd.command(line);
    $('problem').textContent = '';
    return answer;
  } catch (error) {
    $('problem').textContent = humanError(error.message, t);
    return null;
  }
}

const now = new NowPlaying(mpd, run);
const queue = new Queue(mpd, run);
// The pages not on the first screen load after the playing song is shown.
let library = null, accounts = null, offline = null, playlists = null, settings = null, podcasts = null, equalizer = null;

async function loadPages() {
  if (library) return;
  const [{ Library }, { Accounts }, { Offline }, { Playlists }, { Settings }, { Podcasts }, { Equalizer }] = await Promise.all(
    ['./library.js', './accounts.js', './offline.js', './playlists.js', './settings.js', './podcasts.js', './equalizer.js'].map((module) => import(module)));
  library = new Library(mpd, run);
  accounts = new Accounts(mpd, run, (name) => library.go('folders', name));
  offline = new Offline(mpd, run);
  playlists = new Playlists(mpd, run);
  settings = new Settings(mpd, run);
  podcasts = new Podcasts(mpd, run, (path) => library.go('folders', ...path.split('/')));
  equalizer = new Equalizer(mpd, run);
}

async function learnLibraryVersion() {
  const stats = await run('stats');
  if (stats) setLibraryVersion(Object.fromEntries(stats.fields).db_update);
}

async function refreshAccounts() {
  const list = await accounts.refresh();
  library.setClouds(list.map((account) => account.account));
}

/// The page the address names (`#library/…` is the library and where in it, still escaped).
function route() {
  const hash = (location.hash || '#now').slice(1);
  const slash = hash.indexOf('/');
  return slash < 0 ? { page: hash || 'now', rest: '' } : { page: hash.slice(0, slash), rest: hash.slice(slash + 1) };
}

function showPage() {
  const { page, rest } = route();
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== page;
  if (page === 'queue') { queue.drawn = ''; queue.draw(); }
  if (page === 'library' && library) library.show(rest).catch((error) => { $('problem').textContent = error.message; });
  // The bar at the bottom has four pages; the others are under More, which is then marked.
  const tab = ['now', 'queue', 'library', 'more'].includes(page) ? page : 'more';
  for (const link of document.querySelectorAll('#pages a')) {
    if (link.hash === '#' + page) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  for (const link of document.querySelectorAll('#tabbar a')) {
    if (link.hash === '#' + tab) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  now.showMini(page !== 'now');
}
window.addEventListener('hashchange', showPage);

document.addEventListener('keydown', (event) => {
  if (event.target.closest('input, textarea, select, dialog')) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const volume = Number(now.status.volume);
  if (event.key === ' ') { event.preventDefault(); $('toggle').click(); }
  else if (event.key === 'ArrowRight' && event.shiftKey) run('next');
  else if (event.key === 'ArrowLeft' && event.shiftKey) run('previous');
  else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    if (now.status.state !== 'stop') { event.preventDefault(); run(`seekcur ${event.key === 'ArrowRight' ? '+' : '-'}10`); }
  } else if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && volume >= 0 && route().page !== 'queue') {
    event.preventDefault();
    run(`setvol ${Math.max(0, Math.min(100, volume + (event.key === 'ArrowUp' ? 5 : -5)))}`);
  }
  else if (event.key === '/') { event.preventDefault(); if (route().page !== 'library') location.hash = '#library'; $('search').focus(); }
});

mpd.addEventListener('changed', (event) => follow(new Set(event.detail)).catch((error) => { $('problem').textContent = error.message; }));

/// Brings the pages up to date with what changed.
async function follow(changed) {
  const any = (...names) => names.some((name) => changed.has(name));
  if (any('player', 'mixer', 'options', 'playlist', 'update')) await now.refreshStatus();
  if (any('player', 'playlist')) { await now.refreshSong(); await queue.refresh(now.status.songid); }
  if (any('output')) await now.refreshOutputs(run);
  if (!library) return;
  if (any('sticker')) library.forgetPositions();
  if (any('database', 'mount')) { await learnLibraryVersion(); await library.refresh(); }
  if (!any('database', 'mount') && any('sticker') && ['album', 'folders'].includes(library.view)) await library.refresh();
  if (any('account', 'database')) await refreshAccounts();
  if (any('offline')) await offline.refresh();
  if (any('stored_playlist')) library.setPlaylists(await playlists.refresh());
  if (any('options', 'update', 'database')) await settings.refresh(now.status);
  else if (any('analysis')) await settings.refreshAnalysis();
  if (any('database')) await podcasts.refresh();
  if (any('eq', 'output')) await equalizer.refresh();
}

/// The connection's state for people: nothing while connected; "Reconnecting…" the moment it
/// is lost (the seek bar stops, taps say they cannot reach the box) and while it is retried.
function showConnection(text) {
  $('connection').textContent = text;
  document.body.classList.toggle('offline', Boolean(text));
}
mpd.addEventListener('close', () => { showConnection(t('reconnecting')); now.connectionLost(); });
mpd.addEventListener('retry', (event) => showConnection(t('reconnectingIn', { seconds: Math.round(event.detail / 1000) })));
mpd.addEventListener('open', () => {
  showConnection('');
  restore().catch((error) => { $('problem').textContent = humanError(error.message, t); });
});

/// With a `password` in the daemon's config and no permission to read without it, the page
/// asks for it, as any MPD client would: the daemon's answer to `password` decides. The one
/// given is sent again when the connection comes back.
let givenPassword = null;
async function logIn() {
  if (givenPassword !== null) await mpd.command(`password ${quote(givenPassword)}`).catch(() => { givenPassword = null; });
  for (;;) {
    try {
      return await now.refreshStatus();
    } catch (error) {
      if (!/permission/.test(error.message)) throw error;
    }
    $('login').hidden = false;
    $('login-password').focus();
    const password = await new Promise((resolve) => {
      $('login').onsubmit = (event) => { event.preventDefault(); resolve($('login-password').value); };
    });
    try {
      await mpd.command(`password ${quote(password)}`);
      givenPassword = password;
      $('login').hidden = true;
      $('problem').textContent = '';
    } catch (error) {
      $('problem').textContent = error.message;
    }
  }
}

/// Everything read anew from the daemon (at start and after each reconnect): the song and
/// status, the queue, outputs, the library and the other pages — the page on screen first.
let restoring = null;
async function restore() {
  if (restoring) return restoring;
  restoring = (async () => {
    await logIn();
    performance.mark('nimbus:status');
    // Covers come in chunks of this size (MPD's default is 8 KiB).
    await run('binarylimit 1048576');
    await learnLibraryVersion();
    await now.refreshSong();
    performance.mark('nimbus:song');
    const onScreen = route().page;
    if (onScreen !== 'library') await queue.refresh(now.status.songid);
    await loadPages();
    if (onScreen === 'library') await library.show(route().rest);
    await now.refreshOutputs(run);
    if (onScreen === 'library') await queue.refresh(now.status.songid);
    await refreshAccounts();
    library.setPlaylists(await playlists.refresh());
    if (onScreen !== 'library') await library.show('', { quiet: true });
    await offline.refresh();
    await podcasts.refresh();
    await settings.refresh(now.status);
    await equalizer.refresh();
    document.body.dataset.ready = 'true';
  })();
  try {
    await restoring;
  } finally {
    restoring = null;
  }
}

async function start() {
  showPage();
  showConnection(t('connecting'));
  performance.mark('nimbus:start');
  await mpd.keepConnected();
  performance.mark('nimbus:greeted');
}
start();
