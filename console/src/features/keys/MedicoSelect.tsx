import type { MedicoOption } from './api.ts';

export function MedicoSelect({
  id,
  value,
  onChange,
  medicos,
  loading,
}: {
  id: string;
  value: number;
  onChange: (id: number) => void;
  medicos: MedicoOption[] | undefined;
  loading: boolean;
}) {
  const known = medicos?.some((m) => m.id === value) ?? false;
  return (
    <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))} disabled={loading}>
      <option value={0}>No doctor — the key sees the whole clinic</option>
      {value !== 0 && !known && <option value={value}>Doctor #{value}</option>}
      {medicos?.map((m) => (
        <option key={m.id} value={m.id}>
          {m.nome} (#{m.id}){m.especialidade ? ` · ${m.especialidade}` : ''}
          {m.conselho ? ` · ${m.conselho}` : ''}
        </option>
      ))}
    </select>
  );
}
