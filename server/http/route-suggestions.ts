/**
 * Development mode's hint on a 404 for an unknown /v1 path (issue 29): the operations closest to the path asked
 * for, by an edit distance over path segments. Anyone can ask, unauthenticated: the path considered is capped
 * (segments, characters per segment), the route table is split once, and each segment pair is compared once.
 */

/** At most this many operations are named. */
export const MAX_SUGGESTIONS = 5;
/** Characters of the path considered (the longest /v1 route has 60). */
const MAX_PATH_CHARS = 512;
/** Paths deeper than this are not compared (no /v1 operation has more than 6 segments). */
const MAX_SEGMENTS = 10;
/** Longer segments are not compared: the path is not considered (the longest /v1 route segment has 13). */
const MAX_SEGMENT_CHARS = 40;
/** A segment this far apart (0 to 1, edit distance over the longer length) is another word, not a typo. */
const SIMILAR = 0.34;
/** Total distance of a suggestion: one segment too many or too few, or a few typos. */
const CLOSE_ENOUGH = 1;

/** English words an integrator reaches for first, to the API's segments (the rest is left to the distance). */
const TRANSLATIONS: Record<string, string> = {
  patient: 'pacientes',
  patients: 'pacientes',
  exam: 'exames',
  exams: 'exames',
  doctor: 'medicos',
  doctors: 'medicos',
  physicians: 'medicos',
  report: 'laudos',
  reports: 'laudos',
  records: 'prontuarios',
  'medical-records': 'prontuarios',
  attachments: 'anexos',
  schedule: 'agenda',
  appointments: 'agendamentos',
  procedures: 'procedimentos',
  insurers: 'convenios',
  units: 'unidades',
  file: 'arquivo',
  cancel: 'cancelar',
  reschedule: 'reagendar',
  merge: 'unificar',
};

interface Route {
  method: string;
  /** As documented: `/v1/pacientes/{id}`. */
  shown: string;
  /** Segments after the leading slash; a parameter is null. */
  segments: Array<string | null>;
}

export class RouteSuggestions {
  private readonly routes: Route[];

  /** `routes`: method and Fastify URL (`/v1/pacientes/:id`) of each operation to suggest. */
  constructor(routes: Array<{ method: string; url: string }>) {
    this.routes = routes.map(({ method, url }) => ({
      method,
      shown: url.replace(/:(\w+)/g, '{$1}'),
      segments: url
        .split('/')
        .slice(1)
        .map((segment) => (segment.startsWith(':') ? null : segment)),
    }));
  }

  /** `METHOD /path` of the closest operations, the closest first and the asked method first among equals. */
  suggest(method: string, path: string): string[] {
    const asked = path
      .slice(0, MAX_PATH_CHARS)
      .split('/')
      .slice(1, MAX_SEGMENTS + 2);
    if (asked.length > MAX_SEGMENTS || asked.some((segment) => segment.length > MAX_SEGMENT_CHARS)) return [];
    const words = asked.map((segment) => {
      const word = safeDecode(segment).toLowerCase();
      return TRANSLATIONS[word] ?? word;
    });
    const costs = new Map<string, number>();
    const cost = (word: string, segment: string | null): number => {
      if (segment === null) return parameterCost(word);
      const key = `${word}\u0000${segment}`;
      let known = costs.get(key);
      if (known === undefined) {
        known = segmentCost(word, segment);
        costs.set(key, known);
      }
      return known;
    };
    return this.routes
      .map((route) => ({ route, distance: pathDistance(words, route.segments, cost) }))
      .filter(({ distance }) => distance <= CLOSE_ENOUGH)
      .sort(
        (a, b) =>
          a.distance - b.distance ||
          Number(b.route.method === method) - Number(a.route.method === method) ||
          a.route.shown.localeCompare(b.route.shown),
      )
      .slice(0, MAX_SUGGESTIONS)
      .map(({ route }) => `${route.method} ${route.shown}`);
  }
}

/** Edit distance over segments: inserting or dropping one costs 1, replacing one costs how far apart they are. */
function pathDistance(
  words: string[],
  segments: Array<string | null>,
  cost: (word: string, segment: string | null) => number,
): number {
  let previous = Array.from({ length: segments.length + 1 }, (_, j) => j);
  for (let i = 1; i <= words.length; i++) {
    const current = [i];
    for (let j = 1; j <= segments.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost(words[i - 1], segments[j - 1]));
    }
    previous = current;
  }
  return previous[segments.length];
}

/**
 * A parameter takes an id (digits, a UUID) or the placeholder copied from /docs at no cost; a word without a digit
 * in its place is more likely a literal segment mistyped: half a step, so `/v1/patients` is not `/v1/exames/{id}`.
 */
function parameterCost(word: string): number {
  if (word === '') return 1;
  return /\d/.test(word) || /^(\{\w+\}|:\w+)$/.test(word) ? 0 : 0.5;
}

/** 0 for the same word, up to SIMILAR for a typo of it; 2 (a drop and an insert) for another word. */
function segmentCost(word: string, segment: string): number {
  if (word === segment) return 0;
  const longer = Math.max(word.length, segment.length);
  // The distance is at least the difference in length: skip what cannot be similar.
  if (Math.abs(word.length - segment.length) / longer > SIMILAR) return 2;
  const relative = levenshtein(word, segment) / longer;
  return relative <= SIMILAR ? relative : 2;
}

/** Edit distance (insert, delete, replace: 1 each); callers bound the lengths they pass. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
