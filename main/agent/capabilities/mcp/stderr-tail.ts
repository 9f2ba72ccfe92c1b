/** The last lines a server wrote to stderr (kept to show when it fails), bounded in size. */
export class StderrTail {
  private text = '';

  constructor(private readonly maxChars = 16_384) {}

  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.maxChars) this.text = this.text.slice(this.text.length - this.maxChars);
  }

  /** The last `count` non-empty lines. */
  lines(count = 20): string[] {
    return this.text
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean)
      .slice(-count);
  }

  clear(): void {
    this.text = '';
  }
}
