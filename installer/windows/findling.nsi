; Findling for Windows: a per-user installer (no administrator rights) around the
; PyInstaller one-folder app.
;   makensis /DVERSION=0.1.0 /DSOURCE=..\..\dist\Findling /DOUTFILE=Findling-0.1.0-setup.exe installer\windows\findling.nsi
; installer/build_windows.ps1 passes the version read from desktop/findling/__init__.py.

Unicode true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!ifndef VERSION
  !error "pass /DVERSION=x.y.z (read from desktop/findling/__init__.py by build_windows.ps1)"
!endif
!ifndef SOURCE
  !define SOURCE "..\..\dist\Findling"
!endif
!ifndef OUTFILE
  !define OUTFILE "Findling-${VERSION}-setup.exe"
!endif

!include "MUI2.nsh"
!include "StrFunc.nsh"
!include "WinMessages.nsh"
${StrStr}
${UnStrRep}

Name "Findling ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\Findling"
InstallDirRegKey HKCU "Software\Findling" "InstallDir"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "Findling"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "Findling desktop search"
VIAddVersionKey "LegalCopyright" "Apache-2.0"

!define MUI_ICON "..\..\resources\icons\findling.ico"
!define MUI_UNICON "..\..\resources\icons\findling.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\Findling.exe"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "..\..\LICENSE"
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; Room left in an NSIS string for the PATH plus ";<install dir>\bin".
!define /math PATH_ROOM ${NSIS_MAX_STRLEN} - 300
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Findling"

Section "Findling" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  File /r "${SOURCE}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  CreateDirectory "$SMPROGRAMS\Findling"
  CreateShortcut "$SMPROGRAMS\Findling\Findling.lnk" "$INSTDIR\Findling.exe" "" "$INSTDIR\Findling.exe" 0
  CreateShortcut "$SMPROGRAMS\Findling\Uninstall Findling.lnk" "$INSTDIR\Uninstall.exe"
  WriteRegStr HKCU "Software\Findling" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "Findling"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "Findling"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\Findling.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

; Terminals, scripts and agents run `findling` (the console findling-cli.exe; Findling.exe is
; windowed and prints nothing) through bin\findling.cmd, so that the folder on PATH holds
; only that one name.
Section "Add findling to PATH (for terminals and agents)" SecPath
  CreateDirectory "$INSTDIR\bin"
  FileOpen $0 "$INSTDIR\bin\findling.cmd" w
  FileWrite $0 '@"%~dp0..\findling-cli.exe" %*$\r$\n'
  FileClose $0
  ReadRegStr $1 HKCU "Environment" "Path"
  ${StrStr} $2 "$1" "$INSTDIR\bin"
  StrCmp $2 "" 0 path_done
  ; NSIS strings stop at NSIS_MAX_STRLEN: a longer PATH would come back cut, and writing it
  ; would lose entries. Leave such a PATH alone and say so.
  StrLen $3 "$1"
  IntCmp $3 ${PATH_ROOM} 0 0 path_too_long
  StrCmp $1 "" 0 +3
    WriteRegExpandStr HKCU "Environment" "Path" "$INSTDIR\bin"
    Goto path_changed
  WriteRegExpandStr HKCU "Environment" "Path" "$1;$INSTDIR\bin"
  path_changed:
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  WriteRegDWORD HKCU "Software\Findling" "AddedToPath" 1
  Goto path_done
  path_too_long:
  MessageBox MB_ICONINFORMATION|MB_OK "Your PATH is too long to change safely. Add $INSTDIR\bin to it yourself to run findling from a terminal." /SD IDOK
  path_done:
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecMain} "The Findling app."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} "Run findling from a terminal, a script or an AI agent (findling mcp)."
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Section "Uninstall"
  ; The index and models live in the user's data and cache folders: kept, so a reinstall
  ; finds them. The uninstaller removes only the program (and its PATH entry).
  ReadRegDWORD $0 HKCU "Software\Findling" "AddedToPath"
  IntCmp $0 1 0 path_kept path_kept
    ReadRegStr $1 HKCU "Environment" "Path"
    ${UnStrRep} $1 "$1" ";$INSTDIR\bin" ""
    ${UnStrRep} $1 "$1" "$INSTDIR\bin;" ""
    ${UnStrRep} $1 "$1" "$INSTDIR\bin" ""
    WriteRegExpandStr HKCU "Environment" "Path" "$1"
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  path_kept:
  RMDir /r "$INSTDIR"
  Delete "$SMPROGRAMS\Findling\Findling.lnk"
  Delete "$SMPROGRAMS\Findling\Uninstall Findling.lnk"
  RMDir "$SMPROGRAMS\Findling"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  DeleteRegKey HKCU "Software\Findling"
SectionEnd
