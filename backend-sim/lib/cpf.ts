/** CPF check digits (mod 11), used by the backend validation and by the seed generator. */
export function cpfCheckDigits(base9: string): string {
  const digits = base9.split('').map(Number);
  const dv = (ds: number[], weight: number) => {
    let sum = 0;
    for (let i = 0; i < ds.length; i++) sum += ds[i] * (weight - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  const d1 = dv(digits, 10);
  const d2 = dv([...digits, d1], 11);
  return `${d1}${d2}`;
}

export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf)) return false;
  // Repeated digits pass the arithmetic but are never issued.
  if (/^(\d)\1{10}$/.test(cpf)) return false;
  return cpfCheckDigits(cpf.slice(0, 9)) === cpf.slice(9);
}
