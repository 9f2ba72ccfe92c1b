/**
 * Some local servers (llama.cpp, Ollama with reasoning models) put reasoning inside the content as
 * `<think>…</think>` at the start of the answer. This splits it out as thinking, streaming-safe.
 */
export class ThinkTagSplitter {
  private state: 'start' | 'thinking' | 'text' = 'start';
  private buffer = '';

  push(chunk: string): Array<{ thinking: boolean; text: string }> {
    this.buffer += chunk;
    const out: Array<{ thinking: boolean; text: string }> = [];
    for (;;) {
      if (this.state === 'text') {
        out.push({ thinking: false, text: this.buffer });
        this.buffer = '';
        break;
      }
      if (this.state === 'start') {
        const trimmed = this.buffer.trimStart();
        if ('<think>'.startsWith(trimmed)) break; // still could be the opening tag
        if (trimmed.startsWith('<think>')) {
          this.buffer = trimmed.slice('<think>'.length);
          this.state = 'thinking';
          continue;
        }
        this.state = 'text';
        continue;
      }
      const end = this.buffer.indexOf('</think>');
      if (end >= 0) {
        out.push({ thinking: true, text: this.buffer.slice(0, end) });
        this.buffer = this.buffer.slice(end + '</think>'.length).replace(/^\s+/, '');
        this.state = 'text';
        continue;
      }
      // Keep a possible partial closing tag in the buffer.
      const keep = partialSuffix(this.buffer, '</think>');
      out.push({ thinking: true, text: this.buffer.slice(0, this.buffer.length - keep) });
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      break;
    }
    return out.filter((p) => p.text);
  }

  flush(): Array<{ thinking: boolean; text: string }> {
    const rest = this.buffer;
    this.buffer = '';
    return rest ? [{ thinking: this.state === 'thinking', text: rest }] : [];
  }
}

function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(-n))) return n;
  return 0;
}
