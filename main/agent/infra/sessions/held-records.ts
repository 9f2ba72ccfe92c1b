const TORN = 1;
const STATE = 2;
const SKELETON = 4;

/**
 * The records a log scan holds (log-scan.ts): where each sits in the log, its line number and flags, in typed
 * arrays (no object per record: a log with no compaction holds every message of the session until its end), and
 * the copies of those it copied.
 */
export class HeldRecords {
  length = 0;
  private at = new Float64Array(0);
  private lineNos = new Float64Array(0);
  private flags = new Uint8Array(0);
  private readonly copies = new Map<number, Buffer>();

  push(start: number, end: number, lineNo: number, torn: boolean, state: boolean, copy?: { bytes?: Buffer; skeleton?: boolean }): void {
    if (this.length === this.flags.length) this.grow();
    const i = this.length++;
    this.at[2 * i] = start;
    this.at[2 * i + 1] = end;
    this.lineNos[i] = lineNo;
    this.flags[i] = (torn ? TORN : 0) | (state ? STATE : 0) | (copy?.skeleton ? SKELETON : 0);
    if (copy?.bytes) this.copies.set(i, copy.bytes);
  }

  /** Forget every record (the arrays are kept for the next ones). */
  clear(): void {
    this.length = 0;
    this.copies.clear();
  }

  start(i: number): number {
    return this.at[2 * i]!;
  }

  end(i: number): number {
    return this.at[2 * i + 1]!;
  }

  lineNo(i: number): number {
    return this.lineNos[i]!;
  }

  torn(i: number): boolean {
    return (this.flags[i]! & TORN) !== 0;
  }

  state(i: number): boolean {
    return (this.flags[i]! & STATE) !== 0;
  }

  /** Copied without its text (a long message: see contextSkeleton). */
  skeleton(i: number): boolean {
    return (this.flags[i]! & SKELETON) !== 0;
  }

  /** The record's copy (undefined: held as where it sits). */
  bytes(i: number): Buffer | undefined {
    return this.copies.get(i);
  }

  private grow(): void {
    const size = Math.max(64, this.flags.length * 2);
    const at = new Float64Array(2 * size);
    at.set(this.at);
    const lineNos = new Float64Array(size);
    lineNos.set(this.lineNos);
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.at = at;
    this.lineNos = lineNos;
    this.flags = flags;
  }
}
