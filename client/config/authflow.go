package config

// IdPLogin says whether the block's ID token comes from an interactive
// login at the identity provider (mcpc login): an "enterprise" block that
// names no variable or file for it.
func (a *Auth) IdPLogin() bool {
	return a.Type == "enterprise" && a.IDTokenEnv == "" && a.IDTokenFile == ""
}
