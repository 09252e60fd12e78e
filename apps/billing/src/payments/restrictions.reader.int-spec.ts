import { billingTestKit } from '../test/billing-test-kit';
import { PaymentsRepository } from './payments.repository';
import { RestrictionsReader } from './restrictions.reader';

/** Integration (real PostgreSQL): the reserves' restriction check, many accounts per statement. */
describe('RestrictionsReader (PostgreSQL)', () => {
  const kit = billingTestKit('restrictions');

  it('answers each concurrent reserve for its own account, in one statement for all of them', async () => {
    const accounts = await Promise.all(Array.from({ length: 40 }, () => kit.openAccount(10)));
    const restricted = accounts[7];
    await kit.dataSource.query(`INSERT INTO account_restrictions (account_id, reason, message) VALUES ($1, 'dispute', 'This account is restricted: a disputed payment.')`, [restricted]);
    const repository = new PaymentsRepository(kit.dataSource);
    const statements = jest.spyOn(repository, 'restrictionsOf');
    const reader = new RestrictionsReader(repository);

    // Each account twice, pushed in the same turn: they gather into one batch.
    const answers = await Promise.all([...accounts, ...accounts].map((id) => reader.read(id)));

    expect(statements).toHaveBeenCalledTimes(1);
    expect(statements.mock.calls[0][0]).toHaveLength(40); // each account asked for once
    answers.forEach((answer, i) => {
      const id = [...accounts, ...accounts][i];
      if (id === restricted) expect(answer).toMatchObject({ reason: 'dispute', message: 'This account is restricted: a disputed payment.' });
      else expect(answer).toBeNull();
    });
  });

  it('sees a restriction written after an earlier read (nothing is kept between batches)', async () => {
    const accountId = await kit.openAccount(10);
    const reader = new RestrictionsReader(new PaymentsRepository(kit.dataSource));
    expect(await reader.read(accountId)).toBeNull();
    await kit.dataSource.query(`INSERT INTO account_restrictions (account_id, reason, message) VALUES ($1, 'refund', 'Restricted after a refund.')`, [accountId]);
    expect(await reader.read(accountId)).toMatchObject({ reason: 'refund' });
  });
});
