// How terminal output becomes readable text, shared by the core (for the model) and the UI (live output).
/* eslint-disable no-control-regex -- matching terminal control characters is the point of this file */

// CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, then any other short escape (whose final byte
// is not one that opens a CSI or a string).
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -/]*[0-OQ-WYZ\\`-~]/g;
// Control characters other than tab, newline and carriage return.
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;
const COMPLETE_AT_START = /^(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -/]*[0-OQ-WYZ\\`-~])/;

/** Remove ANSI escape sequences and stray control characters (keeps \t, \n and \r). */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '').replace(/\x1b/g, '').replace(CONTROLS, '');
}

/** stripAnsi for a stream: an escape sequence split across chunks is held back until it completes. */
export class AnsiStripper {
  private pending = '';

  push(chunk: string): string {
    let text = this.pending + chunk;
    this.pending = '';
    const last = text.lastIndexOf('\x1b');
    if (last >= 0 && text.length - last < 4096 && !COMPLETE_AT_START.test(text.slice(last))) {
      this.pending = text.slice(last);
      text = text.slice(0, last);
    }
    return stripAnsi(text);
  }

  flush(): string {
    const rest = stripAnsi(this.pending);
    this.pending = '';
    return rest;
  }
}

/** Apply carriage returns the way a terminal does (a progress bar redrawn in place shows its last state). */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      return line.split('\r').reduce((shown, segment) => segment + shown.slice(segment.length), '');
    })
    .join('\n');
}

/** What a person or a model should read of raw terminal output. */
export function terminalText(raw: string): string {
  return collapseCarriageReturns(stripAnsi(raw));
}
