import { redactSecrets } from '../../../nodes/shared/transport/messages';

// expected answers written by hand
describe('secrets in upstream text', () => {
	test.each([
		[
			'{"access_token":"abc123def456","token_type":"Bearer"}',
			'{"access_token":"[redacted]","token_type":"Bearer"}',
		],
		[
			'grant_type=client_credentials&client_secret=s3cr3t-value&scope=x',
			'grant_type=client_credentials&client_secret=[redacted]&scope=x',
		],
		[
			'Authorization: Bearer abcdefgh12345678 was refused',
			'Authorization: Bearer [redacted] was refused',
		],
		['authorization: Basic c3RvY2tyb29tOnNlY3JldA==', 'authorization: Basic [redacted]'],
		['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-part here', 'token [redacted] here'],
		[
			'refresh_token: zzz9999 and password=hunter2',
			'refresh_token: [redacted] and password=[redacted]',
		],
		['Status must be one of New, Deployed', 'Status must be one of New, Deployed'],
		[
			'The externalId INV-1 belongs to asset 65f1c0ffee0123456789abcd',
			'The externalId INV-1 belongs to asset 65f1c0ffee0123456789abcd',
		],
	])('%s', (text, expected) => {
		expect(redactSecrets(text)).toBe(expected);
	});
});
