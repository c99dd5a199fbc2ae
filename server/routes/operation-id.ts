const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * `PATCH /v1/pacientes/:id` → `patchPacientesById`: the OpenAPI document's operationId and the `operation` label
 * of the gateway's metrics (server/metrics), one spelling for both.
 */
export function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/v1\//, '')
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? `By${capitalize(segment.slice(1))}` : segment.split('-').map(capitalize).join(''),
    );
  return method.toLowerCase() + words.join('');
}
