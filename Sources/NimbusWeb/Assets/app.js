import { MPD } from './mpd.js';

// The page's strings, one table per language, chosen by the browser's language.
const strings = {
  en: { now: 'Now playing', queue: 'Queue', volume: 'Volume', seek: 'Position', play: 'Play', pause: 'Pause', next: 'Next',
    previous: 'Previous', random: 'Random', repeat: 'Repeat', single: 'Single', consume: 'Consume', options: 'Playback options',
    connecting: 'Connecting…', offline: 'Not connected', nothing: 'Nothing is playing' },
  ru: { now: 'Сейчас играет', queue: 'Очередь', volume: 'Громкость', seek: 'Позиция', play: 'Играть', pause: 'Пауза',
    next: 'Следующая', previous: 'Предыдущая', random: 'Случайно', repeat: 'Повтор', single: 'Одна песня', consume: 'Удалять сыгранные',
    options: 'Режимы воспроизведения', connecting: 'Подключение…', offline: 'Нет связи', nothing: 'Ничего не играет' },
};
const language = (navigator.languages || [navigator.language]).map((tag) => tag.slice(0, 2)).find((tag) => strings[tag]) || 'en';
const t = (key) => strings[language][key] || strings.en[key] || key;
document.documentElement.lang = language;
for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
for (const element of document.querySelectorAll('[data-label]')) element.setAttribute('aria-label', t(element.dataset.label));

const $ = (id) => document.getElementById(id);

// Icons as paths (a font may lack the media symbols); drawn in the text colour.
const icons = {
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
  next: 'M6 6l8.5 6L6 18zM16 6h2v12h-2z',
  previous: 'M18 6l-8.5 6 8.5 6zM6 6h2v12H6z',
};
function setIcon(button, name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', icons[name]);
  svg.append(path);
  button.replaceChildren(svg);
}
for (const button of document.querySelectorAll('[data-icon]')) setIcon(button, button.dataset.icon);
const clock = (seconds) => {
  const whole = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = String(whole % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
};

const mpd = new MPD(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`);
let status = {};
let shownAt = 0;
let seeking = false;

async function refreshStatus() {
  status = await mpd.record('status');
  shownAt = performance.now();
  const playing = status.state === 'play';
  setIcon($('toggle'), playing ? 'pause' : 'play');
  $('toggle').setAttribute('aria-label', t(playing ? 'pause' : 'play'));
  $('volume').value = status.volume ?? 0;
  $('volume').disabled = status.volume === undefined;
  for (const option of ['random', 'repeat', 'single', 'consume']) $(option).setAttribute('aria-pressed', String(status[option] === '1'));
  $('position').max = status.duration || 0;
  $('duration').textContent = clock(status.duration);
  showElapsed();
}

async function refreshSong() {
  const song = await mpd.record('currentsong');
  $('now-title').textContent = song.Title || song.Name || (song.file ? song.file.split('/').pop() : t('nothing'));
  $('artist').textContent = song.Artist || '';
  $('album').textContent = song.Album || '';
  document.title = song.Title ? `${song.Title} — Nimbus` : 'Nimbus';
}

async function refreshQueue() {
  const songs = await mpd.records('playlistinfo', 'file');
  const list = $('queue-list');
  list.replaceChildren(...songs.map((song) => {
    const item = document.createElement('li');
    item.textContent = [song.Artist, song.Title || song.Name || song.file.split('/').pop()].filter(Boolean).join(' — ');
    if (song.Id === status.songid) item.setAttribute('aria-current', 'true');
    return item;
  }));
}

function showElapsed() {
  if (seeking) return;
  let elapsed = Number(status.elapsed || 0);
  if (status.state === 'play') elapsed += (performance.now() - shownAt) / 1000;
  elapsed = Math.min(elapsed, Number(status.duration || elapsed));
  $('elapsed').textContent = clock(elapsed);
  $('position').value = elapsed;
}

function tick() {
  showElapsed();
  requestAnimationFrame(tick);
}

const run = (line) => mpd.command(line).catch((error) => console.warn(line, error.message));
$('toggle').addEventListener('click', () => run(status.state === 'play' ? 'pause 1' : 'play'));
$('next').addEventListener('click', () => run('next'));
$('previous').addEventListener('click', () => run('previous'));
$('volume').addEventListener('change', (event) => run(`setvol ${event.target.value}`));
$('position').addEventListener('input', () => { seeking = true; $('elapsed').textContent = clock($('position').value); });
$('position').addEventListener('change', async (event) => { seeking = false; await run(`seekcur ${event.target.value}`); });
for (const option of ['random', 'repeat', 'single', 'consume']) {
  $(option).addEventListener('click', () => run(`${option} ${status[option] === '1' ? 0 : 1}`));
}

function showPage() {
  const page = (location.hash || '#now').slice(1);
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== page;
  for (const link of document.querySelectorAll('nav a')) {
    if (link.hash === '#' + page) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
}
window.addEventListener('hashchange', showPage);
document.addEventListener('keydown', (event) => {
  if (event.target.closest('input, textarea, select')) return;
  if (event.key === ' ') { event.preventDefault(); $('toggle').click(); }
  if (event.key === 'ArrowRight' && event.shiftKey) run('next');
  if (event.key === 'ArrowLeft' && event.shiftKey) run('previous');
});

mpd.addEventListener('changed', async (event) => {
  const changed = new Set(event.detail);
  if (['player', 'mixer', 'options', 'playlist'].some((name) => changed.has(name))) await refreshStatus();
  if (changed.has('player') || changed.has('playlist')) await refreshSong();
  if (changed.has('playlist') || changed.has('player')) await refreshQueue();
});
mpd.addEventListener('close', () => { $('connection').textContent = t('offline'); });

async function start() {
  showPage();
  $('connection').textContent = t('connecting');
  await mpd.connect();
  $('connection').textContent = '';
  await Promise.all([refreshStatus(), refreshSong()]);
  await refreshQueue();
  requestAnimationFrame(tick);
}
start().catch(() => { $('connection').textContent = t('offline'); });
