// Transfers between accounts in a multi-document transaction; a feed of movements from a
// change stream.

export async function open(db, id, balance) {
  await db.collection('accounts').insertOne({ _id: id, balance });
}

export async function transfer(client, db, from, to, amount) {
  const session = client.startSession();
  try {
    await session.withTransaction(async () => {
      const accounts = db.collection('accounts');
      const src = await accounts.findOneAndUpdate(
        { _id: from },
        { $inc: { balance: -amount } },
        { session, returnDocument: 'after' },
      );
      if (src === null) throw new Error(`no account ${from}`);
      if (src.balance < 0) throw new Error('insufficient funds');
      await accounts.updateOne({ _id: to }, { $inc: { balance: amount } }, { session });
      await db.collection('ledger').insertOne({ from, to, amount, at: new Date() }, { session });
    });
  } finally {
    await session.endSession();
  }
}

export async function balances(db) {
  const rows = await db.collection('accounts').find().sort({ _id: 1 }).toArray();
  return Object.fromEntries(rows.map((r) => [r._id, r.balance]));
}
