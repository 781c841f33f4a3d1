/**
 * The smallest stand-in for the `expo` package that expo-crypto's web AES (`build/aes/ExpoCryptoAES.web.js`)
 * needs: it imports only `registerWebModule` and `NativeModule` from `expo`. Nothing of the AES code is
 * replaced: expo-crypto's own classes and `crypto.subtle` calls run as they do in an Expo web app.
 * (Installing the real `expo` would bring react-native, ~317 MB, for these two functions.)
 */

/** expo's base class of native modules; the web AES module only extends it. */
export class NativeModule {}

/** expo's web registration: an instance of the module class (expo also records it by name). */
export function registerWebModule<T>(ModuleClass: new () => T, _name: string): T {
  return new ModuleClass();
}
