import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { LedgerQueryDto } from '../usage/ledger.dto';
import { ListGenerationsQueryDto } from '../generations/list-generations-query.dto';

/** Each validation message, as the API's ValidationPipe would collect them from a query string. */
function messages(dto: new () => object, query: Record<string, string>): string[] {
  return validateSync(plainToInstance(dto, query)).flatMap((error) => Object.values(error.constraints ?? {}));
}

describe.each([
  ['the generations list', ListGenerationsQueryDto],
  ['the credits ledger', LedgerQueryDto],
])('the page query of %s', (_name, dto) => {
  it('takes limit 1 to 100 and a cursor', () => {
    expect(messages(dto, {})).toEqual([]);
    expect(messages(dto, { limit: '1', cursor: 'abc' })).toEqual([]);
    expect(messages(dto, { limit: '100' })).toEqual([]);
  });

  it.each([
    ['0', 'limit must be at least 1'],
    ['101', 'limit must be at most 100'],
    ['2.5', 'limit must be an integer'],
  ])('refuses limit=%s', (limit, message) => {
    expect(messages(dto, { limit })).toEqual([message]);
  });

  it('answers a cursor longer than any it hands out as one it did not return', () => {
    expect(messages(dto, { cursor: 'c'.repeat(201) })).toEqual(['cursor: not a cursor returned by this endpoint.']);
  });
});

it('the generations list also filters by status and type', () => {
  expect(messages(ListGenerationsQueryDto, { status: 'completed', type: 'TEXT_TO_IMAGE' })).toEqual([]);
  expect(messages(ListGenerationsQueryDto, { status: 'done' })).toEqual([expect.stringMatching(/^status must be one of queued, /)]);
});
