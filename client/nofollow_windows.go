package client

// noFollow is nothing on Windows, whose open has no such flag: the files
// opened with it live in the user's state directory, private to the user
// by the profile's ACLs, so no one else can plant a link there (and making
// a symbolic link needs a privilege or developer mode anyway).
const noFollow = 0
