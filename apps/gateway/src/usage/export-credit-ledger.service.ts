import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { LedgerEntryView } from '@gen/contracts';
import { csvRow } from '../http-common/csv';
import { GetCreditLedger } from './get-credit-ledger.service';

/** Entries read from billing per request while exporting. */
const EXPORT_PAGE = 500;
export const LEDGER_CSV_COLUMNS = ['id', 'created_at', 'kind', 'amount', 'held_change', 'balance_after', 'generation_id', 'model', 'note'] as const;

/**
 * The account's whole ledger as CSV (RFC 4180, newest first), read from billing a page at a time while
 * it is sent. The first page is read before anything is sent, so a billing outage is an ordinary error
 * answer; a failure later cuts the download short (the client sees an incomplete transfer).
 */
@Injectable()
export class ExportCreditLedger {
  constructor(private readonly ledger: GetCreditLedger) {}

  async execute({ accountId }: { accountId: string }): Promise<Readable> {
    const first = await this.ledger.execute({ accountId, limit: EXPORT_PAGE });
    const ledger = this.ledger;
    const pages = async function* (): AsyncGenerator<string> {
      yield csvRow([...LEDGER_CSV_COLUMNS]);
      let page = first;
      for (;;) {
        if (page.data.length > 0) yield page.data.map((e) => csvRow(ledgerCsvFields(e))).join('');
        if (!page.next_cursor) return;
        page = await ledger.execute({ accountId, limit: EXPORT_PAGE, cursor: page.next_cursor });
      }
    };
    return Readable.from(pages());
  }
}

export function ledgerCsvFields(e: LedgerEntryView): Array<string | number | null> {
  return [e.id, e.created_at, e.kind, e.amount, e.held_change, e.balance_after, e.generation_id, e.model, e.note];
}
