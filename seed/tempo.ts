import { isoSeconds } from '../backend-sim/lib/time.ts';

export const MINUTO_MS = 60_000;
const DIA_MS = 86_400_000;
/** Last second of the office hours the generator draws clock times in (07:00:00-19:59:59). */
const FIM_EXPEDIENTE = 19 * 3600 + 59 * 60 + 59;
export const segundos = (hhmmss: string): number => {
  const [h, m, s] = hhmmss.split(':').map(Number);
  return h * 3600 + m * 60 + (s ?? 0);
};
const hhmmssDe = (total: number): string =>
  [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60].map((n) => String(n).padStart(2, '0')).join(':');

/**
 * Clock times of the past: a time drawn for `data` is kept inside [`desde`, the end of the office hours]
 * of that day, and on the reference day never after the reference instant (nothing seeded lies in the
 * future). A time already inside stays as drawn; one outside wraps into the window, so the spread is kept
 * and no extra draw changes the rest of the data.
 */
export function horaNoPassado(data: string, hora: string, referencia: Date, desde = 0): string {
  const refData = isoSeconds(referencia).slice(0, 10);
  const refSegundos = Math.floor((referencia.getTime() % DIA_MS) / 1000);
  const ate = data === refData ? Math.min(FIM_EXPEDIENTE, refSegundos) : FIM_EXPEDIENTE;
  const de = Math.min(desde, ate);
  const t = segundos(hora);
  const n = ate - de + 1;
  return hhmmssDe(t >= de && t <= ate ? t : de + ((((t - de) % n) + n) % n));
}
