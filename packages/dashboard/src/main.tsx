import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';
import './responsive.css';
import { watchTableLabels } from './components/table-labels.ts';

const root = document.getElementById('app')!;
// The entry page shows "Loading Mallard…" until the app takes over.
root.replaceChildren();
render(<App />, root);
// Tables become cards on a phone, each cell headed by its column (responsive.css).
watchTableLabels(root);
