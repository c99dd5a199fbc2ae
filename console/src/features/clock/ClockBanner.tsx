import { useCanWrite } from '../../lib/role.ts';
import { Button, formatDate } from '../../lib/ui.tsx';
import { useClock, useResetClock } from './api.ts';

/** Shown on every page while the appliance clock runs ahead of real time (development mode). */
export function ClockBanner() {
  const clock = useClock();
  const reset = useResetClock();
  const canWrite = useCanWrite();
  if (!clock.data?.shifted) return null;
  return (
    <div
      className="banner banner-warn"
      role="status"
      aria-label="Clock shifted"
      style={{ display: 'flex', alignItems: 'center', gap: 12 }}
    >
      <div style={{ flex: 1 }}>
        <strong>The appliance clock is {clock.data.offset_text} ahead of real time.</strong> Appliance time{' '}
        {formatDate(clock.data.appliance_time)}: requests must be signed with it, and keys, audit entries and file URLs
        age by it. <a href="#/clock">Clock settings</a>
      </div>
      {canWrite && (
        <Button className="btn-sm" onClick={() => reset.mutate()} disabled={reset.isPending}>
          Back to real time
        </Button>
      )}
    </div>
  );
}
