import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { applyInitialTheme } from './features/appearance/theme';
import './styles/theme.css';
import './styles/app.css';
import './styles/markdown.css';
// After app.css, whose generic button and composer rules these refine.
import './styles/composer.css';
import './styles/dock.css';
import './styles/queue.css';
import './styles/questions.css';

applyInitialTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
