/** `1234, usd` → `12.34 USD` (two-decimal currencies; others show their smallest unit). */
export function formatMoney(amount: number, currency: string): string {
  const zeroDecimal = ['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf'].includes(currency.toLowerCase());
  return `${zeroDecimal ? String(amount) : (amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
}
