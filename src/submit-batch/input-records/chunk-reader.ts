/*
 * The input as chunks pulled one at a time, with a way to peek at the start and put it back (what
 * layout detection looked at is read again by the records' reader). Invariant: a chunk is asked
 * of the source only when one is wanted, so memory holds what was peeked at and no more; after
 * stop(), nothing more is asked.
 */

/** Chunks pulled one at a time from a source, with a way to peek at the start and put it back. */
export class ChunkReader {
  private readonly held: Buffer[] = [];
  private ended = false;
  /** True once stop() was called: whoever reads should stop too, even mid-chunk. */
  stopped = false;

  constructor(private readonly pull: () => Promise<Buffer | null>) {}

  /** The next chunk, taken; null at the end. */
  async next(): Promise<Buffer | null> {
    if (this.held.length > 0) return this.held.shift()!;
    if (this.ended) return null;
    const chunk = await this.pull();
    if (chunk === null) this.ended = true;
    return chunk;
  }

  /** Puts chunks back at the front, in order. */
  unshift(chunks: readonly Buffer[]): void {
    this.held.unshift(...chunks.filter((c) => c.length > 0));
  }

  /** At least `bytes` bytes from the start (fewer only at the end), left in place. */
  async peek(bytes: number): Promise<Buffer> {
    const seen: Buffer[] = [];
    let length = 0;
    while (length < bytes) {
      const chunk = await this.next();
      if (chunk === null) break;
      seen.push(chunk);
      length += chunk.length;
    }
    this.unshift(seen);
    return seen.length === 1 ? seen[0]! : Buffer.concat(seen);
  }

  /** Every chunk that is left. */
  async *drain(): AsyncGenerator<Buffer> {
    for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
  }

  /** Nothing more: what is held is dropped, the source is not asked again. */
  stop(): void {
    this.stopped = this.ended = true;
    this.held.length = 0;
  }
}
