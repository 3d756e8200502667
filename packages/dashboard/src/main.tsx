import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';

const root = document.getElementById('app')!;
// The entry page shows "Loading Mallard…" until the app takes over.
root.replaceChildren();
render(<App />, root);
