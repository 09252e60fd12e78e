import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { LedgerEntryView, LedgerReply, LedgerRequest, Subjects, UsageReply, UsageRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { csvRow } from '../http/csv';

/** Entries read from billing per request while exporting. */
const EXPORT_PAGE = 500;
export const LEDGER_CSV_COLUMNS = ['id', 'created_at', 'kind', 'amount', 'held_change', 'balance_after', 'generation_id', 'model', 'note'] as const;

/** The account's credit ledger and spending, from billing; every read takes the account id. */
@Injectable()
export class CreditsLedgerService {
  constructor(private readonly rpc: RpcClient) {}

  page(accountId: string, query: { limit?: number; cursor?: string }): Promise<LedgerReply> {
    return this.rpc.request<LedgerReply, LedgerRequest>(Subjects.billingLedger, { accountId, limit: query.limit ?? 20, cursor: query.cursor });
  }

  usage(accountId: string, days: number): Promise<UsageReply> {
    return this.rpc.request<UsageReply, UsageRequest>(Subjects.billingUsage, { accountId, days });
  }

  /**
   * The whole ledger as CSV (RFC 4180, newest first), read from billing a page at a time while it is
   * sent. The first page is read before anything is sent, so a billing outage is an ordinary error
   * answer; a failure later cuts the download short (the client sees an incomplete transfer).
   */
  async csv(accountId: string): Promise<Readable> {
    const first = await this.page(accountId, { limit: EXPORT_PAGE });
    const pages = async function* (this: CreditsLedgerService): AsyncGenerator<string> {
      yield csvRow([...LEDGER_CSV_COLUMNS]);
      let page = first;
      for (;;) {
        if (page.data.length > 0) yield page.data.map((e) => csvRow(ledgerCsvFields(e))).join('');
        if (!page.next_cursor) return;
        page = await this.page(accountId, { limit: EXPORT_PAGE, cursor: page.next_cursor });
      }
    };
    return Readable.from(pages.call(this));
  }
}

export function ledgerCsvFields(e: LedgerEntryView): Array<string | number | null> {
  return [e.id, e.created_at, e.kind, e.amount, e.held_change, e.balance_after, e.generation_id, e.model, e.note];
}
