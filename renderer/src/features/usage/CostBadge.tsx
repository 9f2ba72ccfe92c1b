import { formatUsd } from '#protocol/helpers/prices';
import { useMeter } from '../../stores/meter';
import { usePreferences } from '../../stores/preferences';
import { useSettings } from '../../stores/settings';
import { sessionCost } from './cost';
import './usage.css';

/** What the session has cost at list prices, where the model's price is known (Settings → Model prices); nothing otherwise. */
export function CostBadge() {
  const byModel = useMeter((s) => s.byModel);
  const prices = usePreferences((s) => s.preferences?.prices);
  const model = useSettings((s) => s.settings?.provider?.model);
  if (!prices) return null;
  const cost = sessionCost(byModel, prices, model);
  if (!cost) return null;
  const unpriced = cost.unpriced.length ? ` Not counted (no price known): ${cost.unpriced.join(', ')}.` : '';
  return (
    <span className="cost-badge" title={`Estimated cost of this session at list prices (Settings → Model prices).${unpriced}`}>
      <span className="visually-hidden">Estimated cost </span>
      {formatUsd(cost.usd)}
      {cost.unpriced.length ? '+' : ''}
    </span>
  );
}
