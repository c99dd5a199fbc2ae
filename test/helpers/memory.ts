import v8 from 'node:v8';
import vm from 'node:vm';

// Memory tests compare resident size before and after one request; a collection first makes the baseline
// independent of when the collector last ran. The flag is set at run time, so no test command needs --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A full garbage collection, now. */
export const collectGarbage = (): void => gc();
