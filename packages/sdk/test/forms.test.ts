import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formRestart } from '../src/detectors/form-restart.ts';
import { formFriction } from '../src/detectors/form-friction.ts';
import { formAbandonment } from '../src/detectors/form-abandonment.ts';
import { formValidationLoop } from '../src/detectors/form-validation-loop.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { html, makeContext } from './helpers.ts';

const $ = (id: string) => document.getElementById(id) as HTMLInputElement;
const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

function type(id: string, value: string) {
  const field = $(id);
  field.dispatchEvent(new FocusEvent('focusin', { bubbles: true }));
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

beforeEach(() => {
  html(`<form id="signup"><input id="name"><input id="email" type="email"><input id="city"><button>Go</button></form>
    <form id="ignored" class="mallard-ignore"><input id="i1"><input id="i2"></form>`);
});

describe('form_restart', () => {
  it('fires when >= 2 filled fields are cleared and the first is filled again', () => {
    const { ctx, signals } = makeContext();
    const d = formRestart(ctx, DEFAULT_SIGNALS.form_restart);
    type('name', 'a');
    type('email', 'b');
    ($('signup') as unknown as HTMLFormElement).reset();
    type('name', 'a');
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'form_restart', el: $('signup') });
    d.stop();
  });

  it('does not fire with only one field filled before, or when the other fields kept their values', () => {
    const { ctx, signals } = makeContext();
    const d = formRestart(ctx, DEFAULT_SIGNALS.form_restart);
    type('name', 'a');
    type('name', '');
    type('name', 'a');
    type('email', 'b');
    type('name', ''); // email still filled: an edit, not a restart
    type('name', 'c');
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('respects ignore rules', () => {
    const { ctx, signals } = makeContext();
    const d = formRestart(ctx, DEFAULT_SIGNALS.form_restart);
    type('i1', 'a');
    type('i2', 'b');
    type('i2', '');
    type('i1', '');
    type('i1', 'a');
    expect(signals).toHaveLength(0);
    d.stop();
  });
});

describe('form_friction', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('fires at the third validation failure of a field within 60 s, not the second', () => {
    const { ctx, signals } = makeContext();
    const d = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    $('email').dispatchEvent(new Event('invalid'));
    vi.advanceTimersByTime(5000);
    $('email').dispatchEvent(new Event('invalid'));
    vi.advanceTimersByTime(5000);
    expect(signals).toHaveLength(0);
    $('email').dispatchEvent(new Event('invalid'));
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'form_friction', el: $('email'), confidence: 0.8 });
    d.stop();
  });

  it('does not count failures older than 60 s', () => {
    const { ctx, signals } = makeContext();
    const d = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    $('email').dispatchEvent(new Event('invalid'));
    vi.advanceTimersByTime(30_000);
    $('email').dispatchEvent(new Event('invalid'));
    vi.advanceTimersByTime(30_001);
    $('email').dispatchEvent(new Event('invalid'));
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('counts one failed check once, even when it raises both an invalid event and aria-invalid', async () => {
    const { ctx, signals } = makeContext();
    const d = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    for (let i = 0; i < 2; i++) {
      $('email').dispatchEvent(new Event('invalid'));
      $('email').setAttribute('aria-invalid', 'true');
      await flushMicrotasks();
      $('email').setAttribute('aria-invalid', 'false');
      vi.advanceTimersByTime(2000);
    }
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('counts aria-invalid turning true', async () => {
    const { ctx, signals } = makeContext();
    const d = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    for (let i = 0; i < 3; i++) {
      $('name').setAttribute('aria-invalid', 'true');
      await flushMicrotasks();
      $('name').setAttribute('aria-invalid', 'false');
      await flushMicrotasks();
      vi.advanceTimersByTime(1000);
    }
    expect(signals).toHaveLength(1);
    d.stop();
  });

  it('fires when a field is focused and left 3 times without a change', () => {
    const { ctx, signals } = makeContext();
    const d = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    const visit = (changed: boolean) => {
      $('city').dispatchEvent(new FocusEvent('focusin', { bubbles: true }));
      if (changed) $('city').dispatchEvent(new Event('input', { bubbles: true }));
      $('city').dispatchEvent(new FocusEvent('focusout', { bubbles: true }));
    };
    visit(false);
    visit(true);
    visit(false);
    expect(signals).toHaveLength(0);
    visit(false);
    expect(signals).toHaveLength(1);
    d.stop();
  });
});

describe('form_abandonment', () => {
  it('fires when the page is left after a field interaction without submit', () => {
    const { ctx, signals } = makeContext();
    const d = formAbandonment(ctx, DEFAULT_SIGNALS.form_abandonment);
    d.leave!();
    expect(signals).toHaveLength(0);
    type('name', 'a');
    d.leave!();
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'form_abandonment', el: $('signup'), count: 1 });
    d.stop();
  });

  it('does not fire after a submit, below the threshold, or for ignored forms', () => {
    const { ctx, signals } = makeContext();
    const d = formAbandonment(ctx, { min_fields: 2 });
    type('name', 'a');
    d.leave!();
    type('name', 'a');
    type('email', 'b');
    $('signup').dispatchEvent(new Event('submit', { bubbles: true }));
    type('i1', 'a');
    type('i2', 'b');
    d.leave!();
    expect(signals).toHaveLength(0);
    d.stop();
  });
});

describe('form_validation_loop', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    html(`<form id="signup"><input id="email" type="email" aria-describedby="email-error"><span id="email-error"></span>
      <button id="go" type="submit">Go</button></form>`);
  });
  afterEach(() => vi.useRealTimers());

  const press = () => $('go').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  const fails = () => $('email').dispatchEvent(new Event('invalid'));
  const edit = () => $('email').dispatchEvent(new Event('input', { bubbles: true }));

  it('fires at the third failed submit, each failure followed by an edit; form_friction stays quiet for the field', () => {
    const { ctx, signals } = makeContext();
    const loop = formValidationLoop(ctx, DEFAULT_SIGNALS.form_validation_loop);
    const friction = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    for (let i = 0; i < 3; i++) {
      press();
      fails();
      if (i < 2) edit();
      vi.advanceTimersByTime(5000);
    }
    expect(signals).toEqual([{ type: 'form_validation_loop', el: $('email'), confidence: 1, count: 3 }]);
    press();
    fails();
    expect(signals).toHaveLength(1);
    loop.stop();
    friction.stop();
  });

  it('repeated failures without an edit are no loop (form_friction\'s), nor are failures without a submit attempt', () => {
    const { ctx, signals } = makeContext();
    const loop = formValidationLoop(ctx, DEFAULT_SIGNALS.form_validation_loop);
    const friction = formFriction(ctx, DEFAULT_SIGNALS.form_friction);
    for (let i = 0; i < 3; i++) {
      press();
      fails();
      vi.advanceTimersByTime(5000);
    }
    expect(signals.map((s) => s.type)).toEqual(['form_friction']);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(5000);
      fails();
      edit();
    }
    expect(signals.map((s) => s.type)).toEqual(['form_friction', 'form_friction']); // still no loop
    loop.stop();
    friction.stop();
  });

  it('counts a scripted error: aria-invalid or the error text the field points to, once per attempt', async () => {
    const { ctx, signals } = makeContext();
    const d = formValidationLoop(ctx, DEFAULT_SIGNALS.form_validation_loop);
    for (let i = 0; i < 3; i++) {
      $('signup').dispatchEvent(new Event('submit', { bubbles: true }));
      $('email').setAttribute('aria-invalid', 'true');
      $('email-error').textContent = 'Enter an email address';
      await flushMicrotasks();
      $('email').removeAttribute('aria-invalid');
      $('email-error').textContent = '';
      edit();
      await flushMicrotasks();
      vi.advanceTimersByTime(5000);
    }
    expect(signals.map((s) => s.type)).toEqual(['form_validation_loop']);
    d.stop();
  });

  it('does not count attempts more than 2 minutes apart; honours the configured count', () => {
    const { ctx, signals } = makeContext();
    const d = formValidationLoop(ctx, { ...DEFAULT_SIGNALS.form_validation_loop, attempts: 2 });
    press();
    fails();
    edit();
    vi.advanceTimersByTime(120_001);
    press();
    fails();
    edit();
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    press();
    fails();
    expect(signals).toHaveLength(1);
    d.stop();
  });
});
