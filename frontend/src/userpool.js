// The user pool's own API (Cognito's AWS JSON 1.1 protocol on /config.json's `auth.idpUrl`), for what
// a signed-in user does to their own account with their access token: read it (GetUser) and turn on
// two-step sign-in with an authenticator app (AssociateSoftwareToken, VerifySoftwareToken,
// SetUserMFAPreference). Errors come as {__type, message}: thrown as a UserPoolError.
import { auth } from "./auth.js";
import { siteConfig } from "./push.js";

export class UserPoolError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

async function call(operation, fields = {}) {
  const { auth: config } = await siteConfig();
  if (!config?.idpUrl) throw new UserPoolError("Unavailable", "The account service is not available on this site.");
  const send = async (token) => {
    const response = await fetch(config.idpUrl, {
      method: "POST",
      headers: { "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": `AWSCognitoIdentityProviderService.${operation}` },
      body: JSON.stringify({ AccessToken: token, ...fields }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok) return body;
    const type = String(body.__type || response.headers.get("x-amzn-ErrorType") || "Error").split(/[#:]/).filter(Boolean).pop();
    throw new UserPoolError(type, body.message || body.Message || `The account service answered ${response.status}.`);
  };
  const token = await auth.accessToken();
  if (!token) throw new UserPoolError("NotAuthorizedException", "You are not signed in.");
  try {
    return await send(token);
  } catch (error) {
    // An access token the pool no longer takes (expired early): refresh once and try again.
    if (error.type !== "NotAuthorizedException" || !(await auth.refresh())) throw error;
    return send(await auth.accessToken());
  }
}

export const userPool = {
  // {Username, UserAttributes: [{Name, Value}], PreferredMfaSetting?, UserMFASettingList?}
  getUser: () => call("GetUser"),
  associateSoftwareToken: () => call("AssociateSoftwareToken"),
  verifySoftwareToken: (code) => call("VerifySoftwareToken", { UserCode: code, FriendlyDeviceName: "Authenticator app" }),
  preferSoftwareToken: () => call("SetUserMFAPreference", { SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }),
};

// Whether the user's account asks for a code from an authenticator app at sign-in.
export const totpEnabled = (user) => (user.UserMFASettingList || []).includes("SOFTWARE_TOKEN_MFA")
  || user.PreferredMfaSetting === "SOFTWARE_TOKEN_MFA";
