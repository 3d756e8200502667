// The script-tag build: window.Mallard, started by the tag's own data attributes.
//   <script async src="https://mallard.example/sdk.js" data-key="svc_pub_..."></script>
// Events go to the origin the script came from unless data-endpoint says otherwise.
import { DEFAULT_SIGNALS, flush, identify, init, onFriction, setConsent, shutdown, signal, track, VERSION } from './index.ts';

// A plain object (not the module namespace, whose getters cost bytes).
const Mallard = { init, track, identify, signal, onFriction, setConsent, flush, shutdown, VERSION, DEFAULT_SIGNALS };

declare global {
  interface Window { Mallard?: typeof Mallard }
}

const w = window;
if (!w.Mallard) {
  w.Mallard = Mallard;
  const tag = (document.currentScript ?? document.querySelector('script[data-key][src*="sdk"]')) as HTMLScriptElement | null;
  const key = tag?.getAttribute('data-key');
  if (tag && key) {
    void Mallard.init({
      key,
      endpoint: tag.getAttribute('data-endpoint') ?? new URL(tag.src, location.href).origin,
      environment: tag.getAttribute('data-env') ?? undefined,
    });
  }
}
