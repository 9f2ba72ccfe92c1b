// The shared styles (palettes, base elements, buttons, dialogs, the layout) come first: each feature's own
// stylesheet, imported by its components through App, refines them.
import './styles/theme.css';
import './styles/app.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { applyInitialTheme } from './features/appearance/theme';

applyInitialTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
