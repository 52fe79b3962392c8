// An MPD client over the page's WebSocket: command lines go out as they are, answers come back
// as MPD writes them (key: value lines, `binary: N` chunks, OK or ACK). Between commands the
// client idles, so changes arrive as they happen; no polling.
export class MPD extends EventTarget {
  /// `subsystems`: what the idle between commands waits for (Nimbus's `account` and
  /// `offline` are sent only to clients that name them).
  constructor(url, subsystems = '') {
    super();
    this.url = url;
    this.idleLine = subsystems ? `idle ${subsystems}\n` : 'idle\n';
    this.pending = [];    // commands waiting for their answers, in order
    this.queued = [];     // commands not yet sent (sent after an idle ends)
    this.idling = false;
    this.buffer = new Uint8Array(0);
    this.decoder = new TextDecoder();
  }

  connect() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, 'mpd');
      socket.binaryType = 'arraybuffer';
      this.socket = socket;
      this.greeted = resolve;
      socket.onerror = () => reject(new Error('cannot reach nimbusd'));
      socket.onmessage = (event) => this.receive(new Uint8Array(event.data));
      socket.onclose = () => {
        for (const entry of this.pending.concat(this.queued)) entry.reject(new Error('connection closed'));
        this.pending = [];
        this.queued = [];
        this.dispatchEvent(new Event('close'));
      };
    });
  }

  /// One command; resolves with its fields ([key, value] pairs) and binary data, rejects with the ACK.
  command(line) {
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
