import { useId, useMemo } from 'react';
import './provider-form.css';

/**
 * The models a server offers, shown as a list to pick from (typing in the Model field narrows it).
 * Buttons in a labelled list: Tab reaches each, Enter picks.
 */
export function ModelList({
  models,
  filter,
  selected,
  onPick,
  onClose,
}: {
  models: string[];
  filter: string;
  selected: string;
  onPick: (model: string) => void;
  onClose: () => void;
}) {
  const heading = useId();
  const shown = useMemo(() => {
    const text = filter.trim().toLowerCase();
    const matching = text && !models.includes(filter.trim()) ? models.filter((m) => m.toLowerCase().includes(text)) : models;
    return matching.length ? matching : models;
  }, [models, filter]);
  return (
    <div className="model-list" role="group" aria-labelledby={heading}>
      <div className="model-list-header">
        <span id={heading}>
          {models.length.toLocaleString('en-US')} model{models.length === 1 ? '' : 's'} on this server
          {shown.length < models.length ? ` · ${shown.length} matching` : ''}
        </span>
        <button type="button" className="link-button" onClick={onClose}>
          Hide
        </button>
      </div>
      <ul>
        {shown.map((model) => (
          <li key={model}>
            <button
              type="button"
              className={`model-option${model === selected ? ' model-option-selected' : ''}`}
              aria-pressed={model === selected}
              onClick={() => onPick(model)}
            >
              {model}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
