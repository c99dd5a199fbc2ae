import { BackendError } from '../errors.ts';
import { decodeBase64, extensionOf, type FileStore, type StoredFile } from '../storage.ts';
import {
  inlineFileInput as arquivoInput,
  type InlineFileInput as ArquivoInput,
} from '../../contracts/backend/files.ts';

export { arquivoInput, type ArquivoInput };

const MAX_BYTES = 20 * 1024 * 1024;

export interface DecodedFile {
  nome: string;
  descricao: string | null | undefined;
  extensao: string;
  body: Buffer;
  field: string;
}

/** Semantic file checks (the gateway checks format first): allowed extension, non-empty, 20 MB. */
export function decodeFiles(
  files: ArquivoInput[] | undefined,
  allowed: readonly string[],
  field: string,
): DecodedFile[] {
  return (files ?? []).map((f, i) => {
    const at = `${field}[${i}]`;
    const extensao = extensionOf(f.nome);
    if (!allowed.includes(extensao))
      throw new BackendError(
        'VALIDATION_ERROR',
        `Anexo invalido: extensao nao permitida (aceitas: ${allowed.join(', ')}).`,
        { field: `${at}.nome`, valores_aceitos: allowed },
      );
    const body = decodeBase64(f.base64);
    if (body.length === 0)
      throw new BackendError('VALIDATION_ERROR', 'Anexo invalido: arquivo vazio.', { field: `${at}.base64` });
    if (body.length > MAX_BYTES)
      throw new BackendError('VALIDATION_ERROR', 'Anexo invalido: arquivo acima de 20 MB.', { field: `${at}.base64` });
    return { nome: f.nome, descricao: f.descricao, extensao, body, field: at };
  });
}

/** Uploads every file; if one fails, the ones already stored are removed. */
export async function uploadAll(
  store: FileStore,
  tenant: string,
  area: string,
  files: DecodedFile[],
): Promise<(StoredFile & DecodedFile)[]> {
  const stored: (StoredFile & DecodedFile)[] = [];
  try {
    for (const f of files) stored.push({ ...f, ...(await store.put(tenant, area, f.nome, f.body)) });
    return stored;
  } catch (err) {
    await store.remove(stored.map((s) => s.object_key)).catch(() => undefined);
    if (err instanceof BackendError) throw err;
    throw new BackendError('INTERNAL_ERROR', 'Falha ao gravar arquivo no armazenamento.', {
      causa: err instanceof Error ? err.message : String(err),
    });
  }
}

/** A report is a PDF: its content must start with the PDF header, whatever its name says. */
export function requirePdf(file: DecodedFile): void {
  if (file.body.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new BackendError('VALIDATION_ERROR', 'Anexo invalido: o laudo deve ser um arquivo PDF.', {
      field: `${file.field}.base64`,
    });
}
