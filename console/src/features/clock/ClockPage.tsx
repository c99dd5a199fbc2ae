import { useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api.ts';
import { Select } from '../../lib/forms.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { Badge, Button, ErrorBanner, Field, Loading, PageHeader, formatDate } from '../../lib/ui.tsx';
import { useChangeClock, useClock, useResetClock } from './api.ts';

const UNITS = [
  { value: 1, label: 'seconds' },
  { value: 60, label: 'minutes' },
  { value: 3600, label: 'hours' },
  { value: 86_400, label: 'days' },
];

/** The spec's time rules, each with the move that crosses it. */
const PRESETS = [
  { seconds: 301, label: '+301 s', rule: 'a presigned file URL (300 s) and a signature timestamp (±300 s) expire' },
  { seconds: 25 * 3600, label: '+25 h', rule: 'an Idempotency-Key (24 h) can be used again' },
  { seconds: 31 * 86_400, label: '+31 days', rule: 'audit entries (30 days) are purged' },
];

const DD = { margin: '2px 0 10px' };

export function ClockPage() {
  const clock = useClock();
  const change = useChangeClock();
  const reset = useResetClock();
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState(3600);
  const [error, setError] = useState<string>();
  // A viewer reads the clock; moving it is an admin's (the console API refuses a viewer's write anyway).
  const canWrite = useCanWrite();

  const advance = (seconds: number) =>
    change.mutate({ advance_seconds: seconds }, { onError: (e) => e instanceof ApiError && setError(e.message) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = Number(amount);
    if (!Number.isInteger(value) || value < 1) return setError('A whole number, 1 or more.');
    setError(undefined);
    advance(value * unit);
  };

  const state = clock.data;
  return (
    <>
      <PageHeader
        title="Clock"
        description="Move the appliance's clock ahead to test the spec's time rules without waiting; development mode only."
        actions={
          canWrite && state?.shifted ? (
            <Button variant="danger" onClick={() => reset.mutate()} disabled={reset.isPending}>
              Back to real time
            </Button>
          ) : null
        }
      />
      <ErrorBanner error={clock.error ?? change.error ?? reset.error} title="The clock could not be read or changed" />
      {clock.isPending ? (
        <Loading />
      ) : state ? (
        <>
          <section className="card card-pad" aria-label="Clock state" style={{ marginBottom: 16 }}>
            <dl className="grid-2" style={{ margin: 0 }}>
              <div>
                <dt className="muted">Appliance time</dt>
                <dd className="mono" style={DD} data-testid="appliance-time">
                  {formatDate(state.appliance_time)}
                </dd>
              </div>
              <div>
                <dt className="muted">Real time</dt>
                <dd className="mono" style={DD}>
                  {formatDate(state.real_time)}
                </dd>
              </div>
              <div>
                <dt className="muted">Offset</dt>
                <dd style={DD}>
                  {state.shifted ? (
                    <Badge tone="warn">{state.offset_text} ahead</Badge>
                  ) : (
                    <Badge tone="ok">At real time</Badge>
                  )}{' '}
                  <span className="muted mono">{state.offset_seconds} s</span>
                </dd>
              </div>
              <div>
                <dt className="muted">Changed</dt>
                <dd style={DD}>{state.changed_at ? formatDate(state.changed_at) : '—'}</dd>
              </div>
            </dl>
          </section>
          {!canWrite ? null : !state.enabled ? (
            <div className="banner banner-info" role="note">
              Clock control is off: the appliance runs in production mode (<code>APP_ENV=production</code>) and always
              keeps real time.
            </div>
          ) : (
            <section className="card card-pad" aria-label="Move the clock">
              <h2 style={{ marginTop: 0 }}>Move ahead</h2>
              <p className="muted">
                Moves add up. Sign requests with the appliance time shown above (<code>/v1/ping</code> answers it as{' '}
                <code>server_time</code>); the CLI does the same with <code>npm run cli -- clock advance 25h</code>.
              </p>
              <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 16 }}>
                {PRESETS.map((p) => (
                  <Button key={p.seconds} onClick={() => advance(p.seconds)} disabled={change.isPending} title={p.rule}>
                    {p.label}
                  </Button>
                ))}
              </div>
              <ul className="muted" style={{ marginTop: 0 }}>
                {PRESETS.map((p) => (
                  <li key={p.seconds}>
                    <strong>{p.label}</strong>: {p.rule}
                  </li>
                ))}
              </ul>
              <form
                onSubmit={submit}
                noValidate
                aria-label="Custom move"
                style={{ display: 'flex', gap: 8, alignItems: 'flex-end' }}
              >
                <Field id="clock-amount" label="Advance by" error={error}>
                  <input
                    id="clock-amount"
                    inputMode="numeric"
                    value={amount}
                    onChange={(e) => setAmount(e.target.value)}
                  />
                </Field>
                <Field id="clock-unit" label="Unit">
                  <Select id="clock-unit" value={unit} onChange={(value) => setUnit(Number(value))} options={UNITS} />
                </Field>
                <div className="field">
                  <Button type="submit" variant="primary" disabled={change.isPending}>
                    Advance
                  </Button>
                </div>
              </form>
            </section>
          )}
        </>
      ) : null}
    </>
  );
}
