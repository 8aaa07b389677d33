package format

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func imageItem(data, mimeType string) string {
	return `{"type":"image","data":"` + data + `","mimeType":"` + mimeType + `"}`
}

func TestMediaFifthImageGoesToFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "overflow")
	var items []string
	for i := range 5 {
		items = append(items, imageItem(b64("image "+string(rune('0'+i))), "image/png"))
	}
	result := `{"content":[` + strings.Join(items, ",") + `]}`
	got, notes := write(t, result, Options{Overflow: &Overflow{Dir: dir}, Query: "content"})
	for i := range 4 {
		if !strings.Contains(got, `"data": "`+b64("image "+string(rune('0'+i)))+`"`) {
			t.Errorf("image %d not inline:\n%s", i, got)
		}
	}
	wantTail := `  {
    "type": "image",
    "dataFile": "DIR/image-*.png",
    "dataBytes": 7,
    "mimeType": "image/png"
  }
]
`
	if !strings.HasSuffix(got, wantTail) {
		t.Errorf("fifth image not replaced in order:\n%s", got)
	}
	if want := "mcpc: note: image (image/png, 7 bytes) saved to DIR/image-*.png\n"; notes != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	files := savedFiles(t, dir, "image-*.png")
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	if data, _ := os.ReadFile(files[0]); string(data) != "image 4" {
		t.Errorf("file holds %q", data)
	}
	checkMode(t, dir, 0o700)
	checkMode(t, files[0], 0o600)
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", filepath.Base(path), got, want)
	}
}

func TestMediaOversizeImageGoesToFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte{0xff, 0xd8, 0x00, 0x42}, 300)
	result := `{"content":[` + imageItem(b64(string(big)), "image/jpeg") + `,{"type":"audio","data":"` + b64("mp3") + `","mimeType":"audio/mpeg"}]}`
	got, notes := write(t, result, Options{Overflow: &Overflow{Dir: dir}, MaxMediaBytes: 1000})
	want := `{
  "content": [
    {
      "type": "image",
      "dataFile": "DIR/image-*.jpg",
      "dataBytes": 1200,
      "mimeType": "image/jpeg"
    },
    {
      "type": "audio",
      "data": "bXAz",
      "mimeType": "audio/mpeg"
    }
  ]
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if want := "mcpc: note: image (image/jpeg, 1200 bytes) saved to DIR/image-*.jpg\n"; notes != want {
		t.Errorf("notes %q", notes)
	}
	files := savedFiles(t, dir, "image-*.jpg")
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	if data, _ := os.ReadFile(files[0]); !bytes.Equal(data, big) {
		t.Errorf("file does not hold the decoded bytes")
	}
}

func TestMediaWithoutOverflow(t *testing.T) {
	result := `{"content":[` + imageItem(b64("0123456789"), "image/png") + `]}`
	got, notes := write(t, result, Options{MaxMedia: -1})
	want := `{
  "content": [
    {
      "type": "image",
      "dataOmitted": true,
      "dataBytes": 10,
      "mimeType": "image/png"
    }
  ]
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if want := "mcpc: note: image (image/png, 10 bytes) omitted: too large or too many to show inline\n"; notes != want {
		t.Errorf("notes %q", notes)
	}
	got, _ = write(t, result, Options{MaxMedia: -1, Mode: ModeText, Kind: KindCallTool})
	if want := "[image image/png, 10 bytes: omitted]\n"; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
}

func TestMediaBadBase64(t *testing.T) {
	dir := t.TempDir()
	result := `{"content":[` + imageItem("not*base64", "image/png") + `,` + imageItem("also not base64!", "image/png") + `]}`
	got, notes := write(t, result, Options{MaxMedia: 1, Overflow: &Overflow{Dir: dir}})
	want := `{
  "content": [
    {
      "type": "image",
      "data": "not*base64",
      "mimeType": "image/png"
    },
    {
      "type": "image",
      "dataOmitted": true,
      "mimeType": "image/png"
    }
  ]
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if want := "mcpc: note: image (image/png) omitted: its data is not valid base64\n"; notes != want {
		t.Errorf("notes %q", notes)
	}
	if files := savedFiles(t, dir, "*"); len(files) != 0 {
		t.Errorf("files written: %v", files)
	}
}

func TestMediaBlobs(t *testing.T) {
	dir := t.TempDir()
	result := `{"content":[{"type":"resource","resource":{"uri":"file:///a.wav","mimeType":"audio/wav","blob":"` + b64("RIFF....WAVE") + `"}},` +
		`{"type":"resource","resource":{"uri":"file:///small","blob":"` + b64("s") + `"}}]}`
	got, notes := write(t, result, Options{MaxMediaBytes: 8, Overflow: &Overflow{Dir: dir}})
	want := `{
  "content": [
    {
      "type": "resource",
      "resource": {
        "uri": "file:///a.wav",
        "mimeType": "audio/wav",
        "blobFile": "DIR/blob-*.wav",
        "blobBytes": 12
      }
    },
    {
      "type": "resource",
      "resource": {
        "uri": "file:///small",
        "blob": "cw=="
      }
    }
  ]
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if want := "mcpc: note: blob (audio/wav, 12 bytes) saved to DIR/blob-*.wav\n"; notes != want {
		t.Errorf("notes %q", notes)
	}
	got, _ = write(t, result, Options{MaxMediaBytes: 8, Overflow: &Overflow{Dir: dir}, Mode: ModeText, Kind: KindCallTool})
	if want := "[resource file:///a.wav, audio/wav, 12 bytes: saved to DIR/blob-*.wav]\n[resource file:///small, 1 bytes]\n"; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
}

func TestMediaQuerySeesFiles(t *testing.T) {
	dir := t.TempDir()
	result := `{"content":[` + imageItem(b64("xyz"), "image/gif") + `]}`
	got, _ := write(t, result, Options{MaxMedia: -1, Overflow: &Overflow{Dir: dir}, Query: "content.0.dataFile", Mode: ModeText})
	if want := "DIR/image-*.gif\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMediaSuffix(t *testing.T) {
	for mt, want := range map[string]string{
		"image/png": ".png", "IMAGE/PNG": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
		"image/webp": ".webp", "audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3",
		"audio/mpeg; codecs=mp3": ".mp3", "application/pdf": ".bin", "": ".bin", "../../etc": ".bin",
	} {
		if got := mediaSuffix(mt); got != want {
			t.Errorf("mediaSuffix(%q) = %q, want %q", mt, got, want)
		}
	}
}
