/**
 * Seeded rows point at a few shared sample objects (keys under `seed-samples/`) instead of
 * uploading one file per row; backend-sim uploads a sample lazily the first time it is located.
 */
function pdf(title: string): Buffer {
  const body = `BT /F1 18 Tf 72 720 Td (${title}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${body.length} >>\nstream\n${body}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export const SEED_SAMPLE_PREFIX = 'seed-samples/';

export const SEED_SAMPLES: Record<string, Buffer> = {
  'seed-samples/exame.pdf': pdf('Exame - arquivo de exemplo'),
  'seed-samples/laudo.pdf': pdf('Laudo assinado - exemplo'),
  'seed-samples/anexo.pdf': pdf('Anexo de prontuario - exemplo'),
};
