package creds

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
)

// ClientMetadata is the OAuth Client ID Metadata Document (SEP-991, the
// IETF draft it adopts) that describes mcpc at url, the "clientMetadataUrl"
// of a server's "auth" block: a public native client whose redirect goes to
// the loopback receiver of 'mcpc login' (port 0: any port, as RFC 8252
// lets a loopback redirect have; else the "redirectPort" it is pinned to).
//
// Its authentication method is given twice. SEP-3149 (a draft) makes the
// list "token_endpoint_auth_methods_supported" required, so that one
// document serves authorization servers of different abilities, and
// deprecates the singular "token_endpoint_auth_method" of RFC 7591, which
// servers written before it read: both say "none" (PKCE, no secret).
func ClientMetadata(clientID string, redirectPort int) ([]byte, error) {
	if err := checkClientID(clientID); err != nil {
		return nil, err
	}
	host := "127.0.0.1"
	if redirectPort != 0 {
		host += ":" + strconv.Itoa(redirectPort)
	}
	doc := struct {
		ClientID        string   `json:"client_id"`
		ClientName      string   `json:"client_name"`
		ApplicationType string   `json:"application_type"`
		RedirectURIs    []string `json:"redirect_uris"`
		GrantTypes      []string `json:"grant_types"`
		ResponseTypes   []string `json:"response_types"`
		AuthMethods     []string `json:"token_endpoint_auth_methods_supported"`
		AuthMethod      string   `json:"token_endpoint_auth_method"`
	}{
		ClientID: clientID, ClientName: "mcpc", ApplicationType: "native",
		RedirectURIs:  []string{"http://" + host + callbackPath},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		AuthMethods:   []string{"none"}, AuthMethod: "none",
	}
	return json.MarshalIndent(doc, "", "  ")
}

// checkClientID refuses what cannot be a client ID of a metadata
// document: it is an https URL with a path, and no fragment or
// credentials (the draft's section 3).
func checkClientID(id string) error {
	u, err := url.Parse(id)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return errors.New("the client ID of a metadata document is the https URL it is published at")
	case u.Path == "" || u.Path == "/":
		return errors.New("the URL needs a path (https://example.com/mcpc/client.json)")
	case u.Fragment != "" || u.User != nil:
		return errors.New("the URL may have no fragment and no user name or password")
	}
	return nil
}
