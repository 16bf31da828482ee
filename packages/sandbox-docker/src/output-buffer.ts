import { Writable } from 'node:stream';

/** Collects a stream's bytes up to a ceiling: the first bytes (`head`) or the last (`tail`). */
export class OutputBuffer extends Writable {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes received, kept or not. */
  received = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly keep: 'head' | 'tail',
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.received += chunk.length;
    if (this.keep === 'head') {
      const room = this.maxBytes - this.kept;
      if (room > 0) this.push(chunk.subarray(0, room));
    } else {
      this.push(chunk);
      while (this.kept > this.maxBytes && this.chunks.length > 0) {
        const first = this.chunks[0] as Buffer;
        const extra = this.kept - this.maxBytes;
        if (first.length <= extra) {
          this.chunks.shift();
          this.kept -= first.length;
        } else {
          this.chunks[0] = first.subarray(extra);
          this.kept -= extra;
        }
      }
    }
    done();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
  }
}
