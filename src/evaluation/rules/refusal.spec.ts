import { detectRefusal } from './refusal';

describe('detectRefusal', () => {
  it.each([
    "I can't help with that request.",
    'I cannot assist with this.',
    'I’m sorry, but that is not something I can do.',
    'I am unable to provide medical advice.',
    "Unfortunately I won't be able to help here.",
    'I apologise, but no.',
    'I must decline.',
    'As an AI, I do not have opinions.',
    '我无法回答这个问题。',
    '抱歉，这个我不能告诉你。',
    '对不起，我没办法处理这个请求。',
    '这类信息我们不能提供。',
    '作为一个AI助手，我没有个人观点。',
    '',
    '   ',
  ])('refusal: %p', (output) => expect(detectRefusal(output).refusal).toBe(true));

  it.each([
    'Your refund was issued today.',
    'I cannot wait to show you the new plan!',
    'Sorry for the wait — your order ships tomorrow.',
    '抱歉让您久等了，您的订单已发货。',
    '好的，已为您办理退款。',
  ])('answer: %p', (output) => expect(detectRefusal(output)).toEqual({ refusal: false }));

  it('names the evidence', () => {
    expect(detectRefusal('  ')).toEqual({ refusal: true, evidence: 'empty output' });
    expect(detectRefusal('Sorry. I CANNOT HELP with that.')).toEqual({ refusal: true, evidence: 'i cannot help' });
  });
});
