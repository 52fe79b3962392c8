// Now playing: the song, a seek bar that moves between updates, the transport, volume, options.
import { $, h, clock, quote, coverURL } from './ui.js';
import { t } from './strings.js';

const icons = {
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
  next: 'M6 6l8.5 6L6 18zM16 6h2v12h-2z',
  previous: 'M18 6l-8.5 6 8.5 6zM6 6h2v12H6z',
};

/// Draws an icon into a button (a font may lack the media symbols), in the text colour.
export function setIcon(button, name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', icons[name]);
  svg.append(path);
  button.replaceChildren(svg);
}

export class NowPlaying {
  constructor(mpd, run) {
    this.mpd = mpd;
    this.run = run;
    this.status = {};
    this.shownAt = 0;
    this.seeking = false;
    for (const button of document.querySelectorAll('[data-icon]')) setIcon(button, button.dataset.icon);
    $('toggle').addEventListener('click', () => run(this.status.state === 'play' ? 'pause 1' : 'play'));
    $('mini-toggle').addEventListener('click', () => run(this.status.state === 'play' ? 'pause 1' : 'play'));
    $('mini-next').addEventListener('click', () => run('next'));
    $('next').addEventListener('click', () => run('next'));
    $('previous').addEventListener('click', () => run('previous'));
    $('volume').addEventListener('change', (event) => run(`setvol ${event.target.value}`));
    $('position').addEventListener('input', () => { this.seeking = true; $('elapsed').textContent = clock($('position').value); });
    $('position').addEventListener('change', async (event) => { this.seeking = false; await run(`seekcur ${event.target.value}`); });
    for (const option of ['random', 'repeat', 'single', 'consume']) {
      $(option).addEventListener('click', () => run(`${option} ${this.status[option] === '1' ? 0 : 1}`));
    }
    $('sleep').addEventListener('change', (event) => {
      this.sleepChoice = event.target.value;
      run(`sleeptimer ${event.target.value}`);
    });
    const tick = () => { this.showElapsed(); this.showSleep(); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }

  /// The connection is gone: what was shown stays, but nothing moves as if it still played.
  connectionLost() {
    this.status = { ...this.status, state: 'unknown' };
    this.showElapsed();
  }

  async refreshStatus() {
    this.status = await this.mpd.record('status');
    this.shownAt = performance.now();
    const status = this.status, playing = status.state === 'play';
    for (const id of ['toggle', 'mini-toggle']) {
      setIcon($(id), playing ? 'pause' : 'play');
      $(id).setAttribute('aria-label', t(playing ? 'pause' : 'play'));
    }
    if (this.listening && 'mediaSession' in navigator) navigator.mediaSession.playbackState = playing ? 'playing' : 'paused';
    $('volume').value = status.volume ?? 0;
    $('volume').disabled = status.volume === undefined || status.volume === '-1';
    for (const option of ['random', 'repeat', 'single', 'consume']) $(option).setAttribute('aria-pressed', String(status[option] === '1'));
    $('position').max = status.duration || 0;
    $('duration').textContent = clock(status.duration);
    this.showElapsed();
  }

  async refreshSong() {
    const song = await this.mpd.record('currentsong');
    if (song.file !== this.coverOf) {
      this.coverOf = song.file;
      this.showCover(song.file).catch(() => {});
      this.showMiniCover(song.file);
    }
    $('now-title').textContent = song.Title || song.Name || (song.file ? song.file.split('/').pop() : t('nothing'));
    $('mini-title').textContent = $('now-title').textContent + (song.Artist ? ` — ${song.Artist}` : '');
    $('artist').textContent = song.Artist || '';
    $('album').textContent = song.Album || '';
    document.title = song.Title ? `${song.Title} — Nimbus` : 'Nimbus';
    this.song = song;
    this.showMediaSession();
    await this.showLoudness(song.file);
  }

  /// The box's measurement of the song, when it has one: its integrated loudness and the gain
  /// ReplayGain gives it (a song not measured yet, or a box that does not measure, shows none).
  async showLoudness(file) {
    const measured = file ? await this.mpd.record(`loudness ${quote(file)}`).catch(() => null) : null;
    $('now-loudness').hidden = !measured;
    if (!measured) return;
    const gain = Number(measured.track_gain);
    $('now-loudness').textContent = `${t('loudness')} ${measured.integrated} LUFS · ${t('gain')} ${gain > 0 ? '+' : ''}${gain.toFixed(1)} dB`;
  }

  /// While this browser plays an httpd stream (*Listen here*), the phone's lock screen and
  /// notification show the song, its cover and play/pause/next, which drive the box.
  showMediaSession() {
    if (!('mediaSession' in navigator)) return;
    if (!this.listening) { navigator.mediaSession.metadata = null; return; }
    const song = this.song || {};
    const size = 512;
    navigator.mediaSession.metadata = new MediaMetadata({
      title: song.Title || song.Name || (song.file || '').split('/').pop() || 'Nimbus', artist: song.Artist || '', album: song.Album || '',
      artwork: song.file ? [{ src: new URL(coverURL({ uri: song.file }, size), location.href).href, sizes: `${size}x${size}`, type: 'image/jpeg' }] : [],
    });
    navigator.mediaSession.playbackState = this.status.state === 'play' ? 'playing' : 'paused';
    if (this.sessionHandlers) return;
    this.sessionHandlers = true;
    const act = (line) => () => this.run(line);
    navigator.mediaSession.setActionHandler('play', () => { $('listen-audio').play().catch(() => {}); this.run('play'); });
    navigator.mediaSession.setActionHandler('pause', act('pause 1'));
    navigator.mediaSession.setActionHandler('nexttrack', act('next'));
    navigator.mediaSession.setActionHandler('previoustrack', act('previous'));
  }

  /// The mini player (cover, title, play/pause; a tap opens Now playing) on every other page.
  showMini(visible) {
    $('mini').hidden = !visible;
  }

  /// The mini player's small cover: the daemon's scaled one, hidden where there is none.
  showMiniCover(file) {
    const image = $('mini-cover');
    image.hidden = true;
    if (!file) return;
    image.onload = () => { image.hidden = image.naturalWidth <= 1 || file !== this.coverOf; };
    image.onerror = () => { image.hidden = true; };
    image.src = coverURL({ uri: file }, Math.round(80 * (window.devicePixelRatio || 1)));
  }

  /// The song's cover over HTTP, scaled by the daemon to the size shown (the folder's cover
  /// file, else the picture in the song). Where HTTP covers are not served (a password
  /// guards reading), it is read over the page's MPD session instead: `albumart`, then
  /// `readpicture`, in chunks as MPD sends them.
  async showCover(file) {
    const image = $('cover');
    if (this.coverURL) URL.revokeObjectURL(this.coverURL);
    this.coverURL = null;
    image.hidden = true;
    if (!file) return;
    const size = Math.round(Math.min(320, window.innerWidth) * (window.devicePixelRatio || 1));
    // One transparent pixel is the daemon's "no cover here".
    const loaded = await new Promise((resolve) => {
      image.onload = () => resolve(image.naturalWidth > 1);
      image.onerror = () => resolve(false);
      image.src = coverURL({ uri: file }, size);
    });
    if (file !== this.coverOf) return;
    if (loaded) { image.hidden = false; return; }
    for (const command of ['albumart', 'readpicture']) {
      const chunks = [];
      let offset = 0, size = 1, type = '';
      try {
        while (offset < size && offset < 8 << 20) {
          const answer = await this.mpd.command(`${command} ${quote(file)} ${offset}`);
          const fields = Object.fromEntries(answer.fields);
          if (!answer.binary.length || !fields.size) break;
          size = Number(fields.size);
          type = fields.type || type;
          chunks.push(answer.binary[0]);
          offset += answer.binary[0].length;
        }
      } catch {
        continue;
      }
      if (!chunks.length || file !== this.coverOf) continue;
      this.coverURL = URL.createObjectURL(new Blob(chunks, type ? { type } : {}));
      image.onload = image.onerror = null;
      image.src = this.coverURL;
      image.hidden = false;
      return;
    }
  }

  /// The outputs, each a switch (`toggleoutput`); and "Listen here" for each enabled httpd
  /// output, which plays its stream in this browser (the daemon says where: `/about.json`).
  async refreshOutputs(run) {
    const outputs = await this.mpd.records('outputs', 'outputid');
    $('outputs').replaceChildren(...outputs.map((output) => h('button', {
      'aria-pressed': String(output.outputenabled === '1'), text: output.outputname,
      onclick: () => run(`toggleoutput ${output.outputid}`),
    })));
    if (!this.streams && outputs.some((output) => output.plugin === 'httpd')) {
      this.streams = await fetch('/about.json').then((response) => response.json()).then((about) => about.streams).catch(() => []);
    }
    const enabled = new Set(outputs.filter((output) => output.outputenabled === '1').map((output) => output.outputname));
    const streams = (this.streams || []).filter((stream) => enabled.has(stream.name));
    if (this.listening && !streams.some((stream) => stream.name === this.listening)) this.listen(null);
    $('listen').replaceChildren(...streams.map((stream) => h('button', {
      'aria-pressed': String(this.listening === stream.name), text: `${t('listenHere')} · ${stream.name}`,
      onclick: (event) => { this.listen(this.listening === stream.name ? null : stream); event.target.setAttribute('aria-pressed', String(this.listening === stream.name)); },
    })));
  }

  /// Plays an httpd output's stream here, or stops (null).
  listen(stream) {
    const audio = $('listen-audio');
    this.listening = stream ? stream.name : null;
    if (!stream) { audio.pause(); audio.removeAttribute('src'); audio.load(); this.showMediaSession(); return; }
    audio.src = `${location.protocol}//${location.hostname}:${stream.port}/`;
    audio.play().catch((error) => { $('problem').textContent = error.message; });
    this.showMediaSession();
  }

  /// The sleep timer: what is chosen, and the time left counted down between updates.
  showSleep() {
    const left = this.status.sleeptimer;
    const select = $('sleep');
    if (left === undefined) this.sleepChoice = null;
    if (document.activeElement !== select) {
      const chosen = left === undefined ? '0' : (this.sleepChoice || 'set');
      if (select.value !== chosen) select.value = left === undefined ? '0' : chosen;
    }
    let text = '';
    if (left !== undefined) {
      const playing = this.status.state === 'play' || this.sleepChoice !== 'end';
      const seconds = Math.max(0, Number(left) - (playing ? (performance.now() - this.shownAt) / 1000 : 0));
      text = t('sleepIn', { time: clock(seconds) });
    }
    if ($('sleep-left').textContent !== text) $('sleep-left').textContent = text;
  }

  showElapsed() {
    if (this.seeking) return;
    const status = this.status;
    let elapsed = Number(status.elapsed || 0);
    if (status.state === 'play') elapsed += (performance.now() - this.shownAt) / 1000;
    elapsed = Math.min(elapsed, Number(status.duration || elapsed));
    $('elapsed').textContent = clock(elapsed);
    $('position').value = elapsed;
  }
}
