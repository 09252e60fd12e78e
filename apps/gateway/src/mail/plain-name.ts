/**
 * A name someone typed (an account's name, an inviter's address), as a mail to someone else shows it:
 * plain text that a mail reader cannot turn into a link. Control characters and line breaks go,
 * spaces are collapsed, the length is capped, and anything that looks like a web address or a domain
 * is defanged the usual way (`evil[.]example`, `https[:]//`), so `https://evil.example/x@a.b` cannot
 * be clicked. Names without a dot between letters or a scheme are left as they are; an email address
 * (`kind: 'email'`) only when it holds a scheme, a slash or `www.` (a plain address stays readable).
 */
export function plainName(text: string, kind: 'name' | 'email' = 'name', maxLength = kind === 'email' ? 254 : 100): string {
  let name = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, ' ').replace(/\s+/g, ' ').trim();
  if (name.length > maxLength) name = `${name.slice(0, maxLength - 1)}…`;
  const linkLike = kind === 'email' ? /:\/\/|\/|\bwww\./iu : /:\/\/|\bwww\b|[\p{L}\p{N}]\.[\p{L}\p{N}]/u;
  if (linkLike.test(name)) {
    name = name.replace(/:\/\//g, '[:]//').replace(/\./g, '[.]');
  }
  return name;
}
