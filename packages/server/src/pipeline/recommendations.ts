// A concrete next step per friction type, for elements and (later) the fix list.
const ADVICE: Record<string, string> = {
  rage_click: 'Users click this repeatedly: make it respond at once (a loading state, a disabled-while-working state, or a faster action).',
  dead_click: 'Users expect this to do something: make it interactive, or stop it looking clickable.',
  disabled_element_attempt: 'Users try a disabled control: say why it is disabled and what unlocks it, next to it.',
  form_restart: 'Users clear and refill this form: keep their input on errors and show what went wrong per field.',
  form_friction: 'A field keeps failing validation: state its format up front and validate as they type.',
  form_validation_loop: 'The same validation error repeats: make the message say exactly how to fix the value.',
  error_encounter: 'An error follows a user action here: fix the failing call and show a recoverable message.',
  form_abandonment: 'Users leave this form unfinished: shorten it, or save progress.',
  u_turn_navigation: 'Users come straight back from here: the link promises something the page does not deliver.',
  dead_end_submit: 'Submitting does nothing visible: confirm the submit and show progress or the result.',
};

export function recommendationFor(signalType: string | null): string {
  if (!signalType) return 'No friction recorded here.';
  return ADVICE[signalType] ?? `Users show ${signalType.replace(/_/g, ' ')} here: watch a few sessions to see what they expected.`;
}
