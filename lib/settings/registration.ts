import { db } from "../db/client";

const KEY = "registration_open";

export async function isRegistrationOpen(): Promise<boolean> {
  const row = await db().setting.findUnique({ where: { key: KEY } });
  return row?.value === true;
}

export async function setRegistrationOpen(open: boolean): Promise<boolean> {
  await db().setting.upsert({ where: { key: KEY }, update: { value: open }, create: { key: KEY, value: open } });
  return open;
}
