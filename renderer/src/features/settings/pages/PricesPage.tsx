import { PriceTableEditor } from '../../usage/PriceTableEditor';

/** What the models cost, for the cost shown beside the token counts (nothing is shown for a model not listed). */
export function PricesPage() {
  return (
    <div className="settings-form">
      <PriceTableEditor />
    </div>
  );
}
