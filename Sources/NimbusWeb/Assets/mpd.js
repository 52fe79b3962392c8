// An MPD client over the page's WebSocket: command lines go out as they are, answers come back
// as MPD writes them (key: value lines, `binary: N` chunks, OK or ACK). Between commands the
// client idles, so changes arrive as they happen; no polling. A dropped connection (the daemon
// restarted, a phone left Wi-Fi or slept) fails every command under way, says so at once, and
// is tried again with a growing pause until the daemon answers; then `open` tells the page to
// read everything again.
export class MPD extends EventTarget {
  /// `subsystems`: what the idle between commands waits for (Nimbus's `account` and
  /// `offline` are sent only to clients that name them).
  constructor(url, subsystems = '') {
    super();
    this.url = url;
    this.idleLine = subsystems ? `idle ${subsystems}\n` : 'idle\n';
    this.pending = [];    // commands waiting for their answers, in order (and the idle)
    this.queued = [];     // commands not yet sent (sent after an idle ends)
    this.idling = false;
    this.connected = false;
    this.buffer = new Uint8Array(0);
    this.decoder = new TextDecoder();
    this.retryDelay = 0;
  }

  /// Connects once; resolves at the greeting, rejects when the daemon cannot be reached.
  connect() {
    return new Promise((resolve, reject) => {
      let socket;
      try {
        socket = new WebSocket(this.url, 'mpd');
      } catch (error) {
        reject(error);
        return;
      }
      socket.binaryType = 'arraybuffer';
      this.socket = socket;
      this.buffer = new Uint8Array(0);
      this.idling = false;
      this.stopping = false;
      this.idleRefused = false;
      this.greeted = () => { this.connected = true; this.retryDelay = 0; resolve(); };
      socket.onerror = () => reject(new Error('cannot reach nimbusd'));
      socket.onmessage = (event) => this.receive(new Uint8Array(event.data));
      socket.onclose = () => {
        if (this.socket !== socket) return;
        const wasConnected = this.connected;
        this.connected = false;
        this.socket = null;
        this.greeted = null;
        this.failAll(new Error('the connection to the box was lost'));
        if (wasConnected) this.dispatchEvent(new Event('close'));
        reject(new Error('cannot reach nimbusd'));
      };
    });
  }

  /// Connects, and keeps connecting after every loss: the first try at once, then after 0.5,
  /// 1, 2, 4 … 10 seconds. `open` is dispatched each time the daemon answers again.
  keepConnected() {
    const attempt = async () => {
      try {
        await this.connect();
        this.dispatchEvent(new Event('open'));
      } catch {
        this.retryDelay = Math.min(10000, this.retryDelay ? this.retryDelay * 2 : 500);
        this.dispatchEvent(new CustomEvent('retry', { detail: this.retryDelay }));
        setTimeout(attempt, this.retryDelay);
      }
    };
    this.addEventListener('close', () => { this.retryDelay = 500; setTimeout(attempt, 0); });
    return attempt();
  }

  /// Every command sent or waiting fails (the idle marker has nothing to fail).
  failAll(error) {
    const entries = this.pending.concat(this.queued);
    this.pending = [];
    this.queued = [];
    for (const entry of entries) if (entry.reject) entry.reject(error);
  }

  /// One command; resolves with its fields ([key, value] pairs) and binary data, rejects with the ACK.
  command(line) {
    if (!this.connected && !this.greeted) return Promise.reject(new Error('not connected to the box'));
    return new Promise((resolve, reject) => {
      this.queued.push({ line, resolve, reject });
      this.flush();
    });
  }

  /// The fields of a one-record answer as an object.
  async record(line) {
    return Object.fromEntries((await this.command(line)).fields);
  }

  /// A list answer cut into records, each starting at `first`.
  async records(line, first) {
    const out = [];
    for (const [key, value] of (await this.command(line)).fields) {
      if (key === first) out.push({});
      if (out.length) out[out.length - 1][key] = value;
    }
    return out;
  }

  flush() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.greeted) return;
    if (this.idling) {
      if (this.queued.length && !this.stopping) {
        this.stopping = true;
        this.socket.send('noidle\n');
      }
      return;
    }
    while (this.queued.length) {
      const entry = this.queued.shift();
      this.pending.push(entry);
      this.socket.send(entry.line + '\n');
    }
    if (!this.pending.length && !this.idleRefused) {
      this.idling = true;
      this.stopping = false;
      this.pending.push({ idle: true });
      this.socket.send(this.idleLine);
    }
  }

  receive(bytes) {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    this.buffer = joined;
    for (;;) {
      if (this.greeted) {
        const end = this.buffer.indexOf(10);
        if (end < 0) return;
        const line = this.decoder.decode(this.buffer.subarray(0, end));
        this.buffer = this.buffer.subarray(end + 1);
        this.version = line.replace(/^OK MPD /, '');
        const greeted = this.greeted;
        this.greeted = null;
        greeted();
        this.flush();
        continue;
      }
      const answer = this.parse();
      if (!answer) return;
      const entry = this.pending.shift();
      if (entry && entry.idle) {
        this.idling = false;
        // Without permission to read (a password not given yet) idle is refused: not again
        // until a command succeeds.
        if (answer.error) this.idleRefused = true;
        const changed = answer.fields.filter(([key]) => key === 'changed').map(([, value]) => value);
        if (changed.length) this.dispatchEvent(new CustomEvent('changed', { detail: changed }));
      } else if (entry) {
        if (answer.error) {
          entry.reject(new Error(answer.error));
        } else {
          this.idleRefused = false;
          entry.resolve(answer);
        }
      }
      if (!this.pending.length) this.flush();
    }
  }

  /// One whole answer from the buffer, or null until it has arrived.
  parse() {
    const fields = [];
    const chunks = [];
    let at = 0;
    for (;;) {
      const end = this.buffer.indexOf(10, at);
      if (end < 0) return null;
      const line = this.decoder.decode(this.buffer.subarray(at, end));
      at = end + 1;
      if (line === 'OK' || line.startsWith('ACK ')) {
        this.buffer = this.buffer.subarray(at);
        return { fields, binary: chunks, error: line === 'OK' ? null : line.replace(/^ACK \[[^\]]*\] \{[^}]*\} /, '') };
      }
      const colon = line.indexOf(': ');
      if (colon < 0) continue;
      const key = line.slice(0, colon), value = line.slice(colon + 2);
      if (key === 'binary') {
        const size = Number(value);
        if (this.buffer.length < at + size + 1) return null;
        chunks.push(this.buffer.slice(at, at + size));
        at += size + 1;
      }
      fields.push([key, value]);
    }
  }
}
