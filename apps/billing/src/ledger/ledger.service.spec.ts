import { daysBetween, decodeLedgerCursor, encodeLedgerCursor } from './ledger.service';

describe('ledger cursors and days', () => {
  it('round-trips a cursor and refuses anything else', () => {
    expect(decodeLedgerCursor(encodeLedgerCursor('12345'))).toBe('12345');
    for (const bad of ['', 'abc', Buffer.from('seq:12').toString('base64url'), Buffer.from('ledger:-1').toString('base64url')]) {
      expect(() => decodeLedgerCursor(bad)).toThrow('cursor: not a cursor returned by this endpoint.');
    }
  });

  it('lists every day of a period, across a month end', () => {
    expect(daysBetween('2026-10-30', '2026-11-02')).toEqual(['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02']);
    expect(daysBetween('2026-11-02', '2026-11-02')).toEqual(['2026-11-02']);
  });
});
