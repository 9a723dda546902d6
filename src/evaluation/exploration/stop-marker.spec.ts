import { detectStopMarker } from './stop-marker';

describe('detectStopMarker', () => {
  it('passes an ordinary answer through, trimmed', () => {
    expect(detectStopMarker('  How do I reset my password?\n')).toEqual({ message: 'How do I reset my password?', stop: null });
  });

  it('finds [[DONE]] on its own line and keeps the message before it', () => {
    expect(detectStopMarker('Thanks, that solved it.\n[[DONE]]')).toEqual({ message: 'Thanks, that solved it.', stop: 'done' });
  });

  it('finds a marker alone, at the end of a line, in any case and spacing', () => {
    expect(detectStopMarker('[[DONE]]')).toEqual({ message: '', stop: 'done' });
    expect(detectStopMarker('ok bye [[ done ]]')).toEqual({ message: 'ok bye', stop: 'done' });
    expect(detectStopMarker('This is useless.\n[[GIVE_UP]]')).toEqual({ message: 'This is useless.', stop: 'give_up' });
    expect(detectStopMarker('[[give up]]')).toEqual({ message: '', stop: 'give_up' });
    expect(detectStopMarker('[[Give-Up]]')).toEqual({ message: '', stop: 'give_up' });
  });

  it('takes the first marker and drops what follows it', () => {
    expect(detectStopMarker('bye\n[[GIVE_UP]]\n[[DONE]] trailing')).toEqual({ message: 'bye', stop: 'give_up' });
  });

  it('does not take look-alikes for markers', () => {
    expect(detectStopMarker('[DONE] is not it').stop).toBeNull();
    expect(detectStopMarker('I am done with [[this]]').stop).toBeNull();
    expect(detectStopMarker('[[DONEE]]').stop).toBeNull();
  });
});
