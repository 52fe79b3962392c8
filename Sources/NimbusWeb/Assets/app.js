// The page's shell: the connection, the pages and what wakes them. Each page is a module;
// all of them speak MPD through one connection that idles between commands.
import { MPD } from './mpd.js';
import { $, quote, setLibraryVersion } from './ui.js';
import { t, lang } from './strings.js';
import { NowPlaying } from './now.js';
import { Queue } from './queue.js';

document.documentElement.lang = lang;
for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
for (const element of document.querySelectorAll('[data-label]')) element.setAttribute('aria-label', t(element.dataset.label));
for (const element of document.querySelectorAll('[data-placeholder]')) element.placeholder = t(element.dataset.placeholder);

const subsystems = 'database update stored_playlist playlist player mixer output options mount partition offline account sticker eq';
const mpd = new MPD(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`, subsystems);

/// Runs a command; an ACK is shown (and gives null) instead of being thrown.
async function run(line) {
  try {
    const answer = await mpd.command(line);
    $('problem').textContent = '';
    return answer;
  } catch (error) {
    $('problem').textContent = error.message;
    return null;
  }
}

const now = new NowPlaying(mpd, run);
const queue = new Queue(mpd, run);
// The pages not on the first screen load after the playing song is shown.
let library = null, accounts = null, offline = null, playlists = null, settings = null, podcasts = null, equalizer = null;

async function loadPages() {
  const [{ Library }, { Accounts }, { Offline }, { Playlists }, { Settings }, { Podcasts }, { Equalizer }] = await Promise.all(
    ['./library.js', './accounts.js', './offline.js', './playlists.js', './settings.js', './podcasts.js', './equalizer.js'].map((module) => import(module)));
  library = new Library(mpd, run);
  accounts = new Accounts(mpd, run, (name) => { location.hash = '#library'; return library.open(name); });
  offline = new Offline(mpd, run);
  playlists = new Playlists(mpd, run);
  settings = new Settings(mpd, run);
  podcasts = new Podcasts(mpd, run, (path) => { location.hash = '#library'; return library.open(path); });
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

function showPage() {
  const page = (location.hash || '#now').slice(1);
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== page;
  if (page === 'queue') { queue.drawn = ''; queue.draw(); }
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
  if (event.target.closest('input, textarea, select')) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const volume = Number(now.status.volume);
  if (event.key === ' ') { event.preventDefault(); $('toggle').click(); }
  else if (event.key === 'ArrowRight' && event.shiftKey) run('next');
  else if (event.key === 'ArrowLeft' && event.shiftKey) run('previous');
  else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    if (now.status.state !== 'stop') { event.preventDefault(); run(`seekcur ${event.key === 'ArrowRight' ? '+' : '-'}10`); }
  } else if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && volume >= 0 && location.hash !== '#queue') {
    event.preventDefault();
    run(`setvol ${Math.max(0, Math.min(100, volume + (event.key === 'ArrowUp' ? 5 : -5)))}`);
  }
  else if (event.key === '/') { event.preventDefault(); location.hash = '#library'; $('search').focus(); }
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
  if (any('database')) await podcasts.refresh();
  if (any('eq', 'output')) await equalizer.refresh();
}
mpd.addEventListener('close', () => { $('connection').textContent = t('disconnected'); });

/// With a `password` in the daemon's config and no permission to read without it, the page
/// asks for it, as any MPD client would: the daemon's answer to `password` decides.
async function logIn() {
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
      $('login').hidden = true;
      $('problem').textContent = '';
    } catch (error) {
      $('problem').textContent = error.message;
    }
  }
}

async function start() {
  showPage();
  $('connection').textContent = t('connecting');
  performance.mark('nimbus:start');
  await mpd.connect();
  performance.mark('nimbus:greeted');
  $('connection').textContent = '';
  await logIn();
  performance.mark('nimbus:status');
  // Covers come in chunks of this size (MPD's default is 8 KiB).
  await run('binarylimit 1048576');
  await learnLibraryVersion();
  await now.refreshSong();
  performance.mark('nimbus:song');
  // The page on screen first (a visit to #library wants its grid before anything else).
  const onScreen = (location.hash || '#now').slice(1);
  if (onScreen !== 'library') await queue.refresh(now.status.songid);
  await loadPages();
  if (onScreen === 'library') await library.show('albums');
  await now.refreshOutputs(run);
  if (onScreen === 'library') await queue.refresh(now.status.songid);
  await refreshAccounts();
  library.setPlaylists(await playlists.refresh());
  if (onScreen !== 'library') await library.show('albums');
  await offline.refresh();
  await podcasts.refresh();
  await settings.refresh(now.status);
  await equalizer.refresh();
}
start().catch(() => { $('connection').textContent = t('disconnected'); });
