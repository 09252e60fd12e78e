/** `1 second`, `2 seconds`: a count of seconds as messages say it ("Retry after 1 second."). */
export function secondsText(seconds: number): string {
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}
