import { useEffect, useId, useState } from 'react';
import type { PriceTable } from '#protocol';
import { setPreferences } from '../../actions/preferences';
import { usePreferences } from '../../stores/preferences';
import './usage.css';

interface Row {
  model: string;
  input: string;
  cachedInput: string;
  output: string;
}

const toRows = (table: PriceTable): Row[] =>
  Object.entries(table).map(([model, p]) => ({
    model,
    input: String(p.input),
    cachedInput: p.cachedInput === undefined ? '' : String(p.cachedInput),
    output: String(p.output),
  }));

/** The rows as a price table, or the first problem found. */
function toTable(rows: Row[]): PriceTable | string {
  const table: PriceTable = {};
  for (const row of rows) {
    const model = row.model.trim();
    if (!model && !row.input.trim() && !row.output.trim()) continue;
    if (!model) return 'Every price needs a model name.';
    if (model in table) return `${model} is listed twice.`;
    const number = (text: string) => (text.trim() === '' ? NaN : Number(text));
    const input = number(row.input);
    const output = number(row.output);
    const cached = row.cachedInput.trim() === '' ? undefined : number(row.cachedInput);
    if (!(input >= 0) || !(output >= 0) || (cached !== undefined && !(cached >= 0))) return `${model}: prices are dollars per million tokens, 0 or more.`;
    table[model] = { input, output, ...(cached !== undefined ? { cachedInput: cached } : {}) };
  }
  return table;
}

/** The price table that turns tokens into cost: edit, add, remove, or go back to the built-in prices. */
export function PriceTableEditor() {
  const preferences = usePreferences((s) => s.preferences);
  const [rows, setRows] = useState<Row[]>(() => toRows(preferences?.prices ?? {}));
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const captionId = useId();
  useEffect(() => {
    if (preferences) setRows(toRows(preferences.prices));
  }, [preferences]);
  if (!preferences) return null;
  const update = (index: number, change: Partial<Row>) => {
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
    setMessage(null);
  };
  const save = async () => {
    const table = toTable(rows);
    if (typeof table === 'string') return setMessage({ error: true, text: table });
    if (await setPreferences({ prices: table })) setMessage({ error: false, text: 'Prices saved.' });
  };
  return (
    <div className="price-editor">
      <table className="price-table" aria-describedby={captionId}>
        <thead>
          <tr>
            <th scope="col">Model (name or prefix)</th>
            <th scope="col">Input</th>
            <th scope="col">Cached input</th>
            <th scope="col">Output</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`Model ${i + 1}`} value={row.model} spellCheck={false} onChange={(e) => update(i, { model: e.target.value })} />
              </td>
              <td>
                <input
                  aria-label={`Input price of ${row.model || `model ${i + 1}`}`}
                  inputMode="decimal"
                  value={row.input}
                  onChange={(e) => update(i, { input: e.target.value })}
                />
              </td>
              <td>
                <input
                  aria-label={`Cached input price of ${row.model || `model ${i + 1}`}`}
                  inputMode="decimal"
                  value={row.cachedInput}
                  placeholder="same"
                  onChange={(e) => update(i, { cachedInput: e.target.value })}
                />
              </td>
              <td>
                <input
                  aria-label={`Output price of ${row.model || `model ${i + 1}`}`}
                  inputMode="decimal"
                  value={row.output}
                  onChange={(e) => update(i, { output: e.target.value })}
                />
              </td>
              <td>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Remove ${row.model || `model ${i + 1}`}`}
                  onClick={() => setRows(rows.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="form-note" id={captionId}>
        US dollars per million tokens. A name also prices the models it starts (<code>gpt-4.1</code> prices <code>gpt-4.1-2025-04-14</code>). A model not listed
        shows no cost.
        {preferences.pricesEdited ? '' : ' These are the built-in list prices.'}
      </p>
      <div className="price-actions">
        <button type="button" className="button button-small" onClick={() => setRows([...rows, { model: '', input: '', cachedInput: '', output: '' }])}>
          Add a model
        </button>
        {preferences.pricesEdited ? (
          <button
            type="button"
            className="button button-small"
            onClick={() => void setPreferences({ prices: null }).then((ok) => ok && setMessage({ error: false, text: 'Back to the built-in prices.' }))}
          >
            Use built-in prices
          </button>
        ) : null}
        <span className="approval-spacer" />
        <button type="button" className="button button-small button-primary" onClick={() => void save()}>
          Update prices
        </button>
      </div>
      {message ? (
        <p className={message.error ? 'form-error' : 'form-note'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      ) : null}
    </div>
  );
}
